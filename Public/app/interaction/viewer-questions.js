// The viewer's list of public questions (docs/protocol.md, "Public questions and upvotes"): shown
// when the presenter makes questions public; most votes first, an upvote toggle on each.
//
// State for tests and CSS: #questions-button[hidden]; .public-question[data-question-id]
// [data-votes][data-voted][data-answered]; its [data-action=vote][aria-pressed].

import { t, errorText } from '../core/i18n.js';
import { el, toast, icon, modalDialog } from '../core/ui.js';

export class PublicQuestions {
  /**
   * @param {{bar: HTMLElement, after: HTMLElement, ask: () => void}} o  the watch bar, the button to
   *   sit after ("Ask"), and how to open the ask form
   */
  constructor({ bar, after, ask }) {
    this.ask = ask;
    this.state = null;
    this.live = null;
    this.voting = new Set();
    this.button = el('button', {
      class: 'btn', attrs: { type: 'button', id: 'questions-button', 'aria-label': t('questions.from-audience'), title: t('questions.from-audience'), 'aria-haspopup': 'dialog' },
      on: { click: () => this.open() },
    }, [icon('list', 18), el('span', { class: 'btn-label', text: t('questions.button') }), el('span', { class: 'count-badge', attrs: { 'data-role': 'public-count' } })]);
    this.button.hidden = true;
    bar.insertBefore(this.button, after ? after.nextSibling : null);
    this.build();
  }

  attach(state, live) {
    this.live = live;
    if (this.state === state) return;
    this.state = state;
    state.addEventListener('update', (e) => {
      if (['welcome', 'questionMode', 'publicQuestions'].includes(e.detail.kind)) this.render();
    });
    this.render();
  }

  build() {
    this.list = el('ol', { class: 'public-list', attrs: { 'aria-label': t('questions.list-label') } });
    this.hint = el('p', { class: 'field-hint public-hint' });
    const close = el('button', { class: 'sheet-icon-btn', attrs: { type: 'button', 'aria-label': t('common.close'), title: t('common.close') } }, [icon('x', 20)]);
    const ask = el('button', { class: 'btn btn-primary', attrs: { type: 'button', 'data-action': 'ask-from-list' } }, [icon('message', 18), el('span', { text: t('ask.label') })]);
    // Kept on the page (shown again with the list as it is then), laid out by its own CSS.
    ({ dialog: this.dialog } = modalDialog({
      title: t('questions.button'), id: 'questions-dialog', cls: 'questions-dialog', open: false, keep: true, bare: true,
      head: [close], headCls: 'questions-head', body: [this.hint, this.list], actions: [ask],
    }));
    close.addEventListener('click', () => this.dialog.close());
    ask.addEventListener('click', () => {
      this.dialog.close();
      this.ask();
    });
    // A tap on the backdrop closes it.
    this.dialog.addEventListener('click', (event) => {
      if (event.target === this.dialog) this.dialog.close();
    });
  }

  open() {
    this.render();
    this.dialog.showModal();
    const first = this.list.querySelector('button');
    (first || this.dialog.querySelector('.sheet-icon-btn')).focus();
  }

  render() {
    if (!this.state) return;
    const mode = this.state.questionMode;
    // Once the session ends, nothing of the questions stays on the phone.
    const shown = Boolean(mode.public) && !(this.live && this.live.state.ended);
    this.button.hidden = !shown;
    if (!shown && this.dialog.open) this.dialog.close();
    const questions = this.state.publicQuestions.slice().sort((a, b) => (b.votes || 0) - (a.votes || 0));
    const badge = this.button.querySelector('[data-role=public-count]');
    badge.textContent = questions.length ? String(questions.length) : '';
    badge.hidden = !questions.length;
    this.hint.textContent = mode.approval
      ? t('questions.hint-approval')
      : t('questions.hint');
    const focused = document.activeElement && this.list.contains(document.activeElement)
      ? document.activeElement.closest('[data-question-id]')?.dataset.questionId : null;
    this.list.replaceChildren();
    if (!questions.length) {
      this.list.append(el('li', { class: 'public-empty' }, [
        el('strong', { text: t('questions.none') }),
        el('span', { text: t('questions.be-first') }),
      ]));
      return;
    }
    for (const q of questions) {
      const voted = this.state.myVotes.has(q.id);
      const votes = q.votes || 0;
      const vote = el('button', {
        class: 'vote-btn', attrs: {
          type: 'button', 'data-action': 'vote', 'aria-pressed': String(voted), disabled: this.voting.has(q.id),
          'aria-label': t('questions.vote-label', { action: voted ? t('questions.unvote') : t('questions.upvote'), count: votes }),
          title: voted ? t('questions.unvote') : t('questions.upvote'),
        },
        on: { click: () => this.vote(q.id, !voted) },
      }, [icon('arrowUp', 18), el('span', { class: 'vote-number', text: String(votes), attrs: { 'data-role': 'votes' } })]);
      this.list.append(el('li', {
        class: 'public-question' + (q.answered ? ' is-answered' : ''),
        data: { questionId: q.id, votes, voted: String(voted), answered: String(Boolean(q.answered)) },
      }, [
        vote,
        el('div', { class: 'public-body' }, [
          el('p', { class: 'public-text', text: q.text }),
          el('div', { class: 'public-meta' }, [
            el('span', { class: 'public-name' + (q.name ? '' : ' is-anonymous'), text: q.name || t('common.anonymous'), attrs: { 'data-role': 'asker' } }),
            q.page ? el('span', { text: t('questions.about-slide', { page: q.page }) }) : null,
            q.answered ? el('span', { class: 'tag tag-correct', text: t('questions.answered'), attrs: { 'data-role': 'answered' } }) : null,
          ]),
        ]),
      ]));
    }
    if (focused) {
      const again = [...this.list.children].find((li) => li.dataset.questionId === focused);
      if (again) again.querySelector('[data-action=vote]').focus();
    }
  }

  async vote(questionId, up) {
    if (!this.live || this.voting.has(questionId)) return;
    this.voting.add(questionId);
    this.render();
    try {
      await this.live.send({ type: 'vote', questionId, up });
      // myVotes follows from the server; keep the button in step meanwhile.
      if (up) this.state.myVotes.add(questionId);
      else this.state.myVotes.delete(questionId);
    } catch (error) {
      toast(error && (error.code || error.message) ? errorText(error) : t('questions.vote-failed'), { kind: 'error' });
    } finally {
      this.voting.delete(questionId);
      this.render();
    }
  }
}
