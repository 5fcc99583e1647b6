// The audience's questions in the presenter's panel: the public/approval switches, sorting,
// unread count, mark answered, approve, and put one on screen for everyone.
//
// State for tests and CSS: .question-item[data-question-id][data-anonymous][data-answered]
// [data-approved][data-votes]; .tab-badge[data-role=unread]; the toast of a new question (its text
// only when no review is needed: a console is often what the room sees).

import { t, formatNumber } from '../core/i18n.js';
import { el, toast, icon } from '../core/ui.js';
import { timeAgo } from './state.js';

export class QuestionsPane {
  /**
   * @param {object} o
   * @param {import('../live/live.js').LiveClient} o.live
   * @param {import('./state.js').InteractionState} o.state
   * @param {(command: object, failure?: string) => Promise<object>} o.send
   * @param {(page: number) => void} o.gotoPage
   * @param {import('./presenter-spotlight.js').OnScreen} o.onScreen
   * @param {HTMLElement} o.container  the questions pane
   * @param {HTMLElement} o.tab  the questions tab (its label says how many are unread)
   * @param {HTMLElement} o.badge  the unread badge
   */
  constructor({ live, state, send, gotoPage, onScreen, container, tab, badge }) {
    this.live = live;
    this.state = state;
    this.send = send;
    this.gotoPage = gotoPage;
    this.onScreen = onScreen;
    this.container = container;
    this.tab = tab;
    this.unreadBadge = badge;
    this.seen = new Set(); // question ids the presenter has seen
    this.sortBy = 'time';
    this.build();
  }

  /**
   * A new question arrived while the list is out of sight. With review on, only how many wait:
   * the console is often the projected screen, and an unapproved question must not reach it.
   */
  announce(added) {
    if (!added || !added.length) return;
    const mode = this.state.questionMode;
    if (mode.approval) {
      const waiting = this.state.questions.filter((q) => !q.approved && !q.answered).length;
      if (!waiting) return;
      // One notice, kept up to date, rather than a pile of them.
      if (this.waitingToast) this.waitingToast.remove();
      this.waitingToast = toast(t('questions.waiting-review', { count: waiting }));
      this.waitingToast.dataset.role = 'questions-waiting';
      return;
    }
    const q = added[added.length - 1];
    const text = q.text.length > 80 ? q.text.slice(0, 79) + '…' : q.text;
    toast(q.anonymous ? t('questions.new-anonymous', { text }) : t('questions.new-from', { name: q.name || t('questions.a-viewer'), text }));
  }

  build() {
    const pane = this.container;
    const sort = el('div', { class: 'segmented segmented-sm', attrs: { role: 'radiogroup', 'aria-label': t('questions.sort') } });
    for (const [value, label] of [['time', t('questions.sort-newest')], ['slide', t('questions.sort-slide')], ['viewer', t('questions.sort-viewer')]]) {
      const input = el('input', { attrs: { type: 'radio', name: 'question-sort', value, id: 'sort-' + value } });
      input.checked = value === this.sortBy;
      input.addEventListener('change', () => {
        this.sortBy = value;
        this.renderQuestions();
      });
      sort.append(el('label', { attrs: { for: 'sort-' + value } }, [input, el('span', { text: label })]));
    }
    this.hideAnswered = el('input', { attrs: { type: 'checkbox', id: 'hide-answered' } });
    this.hideAnswered.addEventListener('change', () => this.renderQuestions());
    this.questionList = el('ul', { class: 'question-list', attrs: { 'aria-label': t('questions.from-audience') } });
    // Public questions: viewers see (approved) questions and upvote them.
    this.publicSwitch = el('input', { attrs: { type: 'checkbox', id: 'questions-public', role: 'switch' } });
    this.approvalSwitch = el('input', { attrs: { type: 'checkbox', id: 'questions-approval', role: 'switch' } });
    const sendMode = () => {
      const questions = { public: this.publicSwitch.checked, approval: this.approvalSwitch.checked };
      this.renderQuestionMode(questions);
      this.send({ type: 'setQuestionMode', questions }, t('questions.setting-not-changed')).catch(() => this.renderQuestionMode());
    };
    this.publicSwitch.addEventListener('change', sendMode);
    this.approvalSwitch.addEventListener('change', sendMode);
    this.approvalRow = el('label', { class: 'switch switch-sm', attrs: { for: 'questions-approval' } }, [
      el('span', { class: 'switch-text' }, [
        el('span', { class: 'field-label', text: t('questions.approve-before') }),
        el('span', { class: 'field-hint', text: t('questions.approve-before-hint') }),
      ]),
      this.approvalSwitch,
    ]);
    const settings = el('div', { class: 'question-settings', attrs: { 'data-role': 'question-mode' } }, [
      el('label', { class: 'switch switch-sm', attrs: { for: 'questions-public' } }, [
        el('span', { class: 'switch-text' }, [
          el('span', { class: 'field-label', text: t('questions.public') }),
          el('span', { class: 'field-hint', text: t('questions.public-hint') }),
        ]),
        this.publicSwitch,
      ]),
      this.approvalRow,
    ]);
    pane.append(
      el('div', { class: 'pane-head' }, [el('h2', { text: t('panel.tab-questions') }), el('span', { class: 'pane-count', attrs: { 'data-role': 'question-count' } })]),
      settings,
      sort,
      el('label', { class: 'check check-sm', attrs: { for: 'hide-answered' } }, [this.hideAnswered, el('span', { text: t('questions.hide-answered') })]),
      this.questionList,
    );
    this.renderQuestions();
  }

  /** The public/approval switches, from the session's question mode (or a change in flight). */
  renderQuestionMode(mode = this.state.questionMode) {
    if (!this.publicSwitch) return;
    this.publicSwitch.checked = Boolean(mode.public);
    this.approvalSwitch.checked = Boolean(mode.approval);
    this.approvalSwitch.disabled = !mode.public || Boolean(this.live.state.ended);
    this.publicSwitch.disabled = Boolean(this.live.state.ended);
    this.approvalRow.classList.toggle('is-off', !mode.public);
    this.renderQuestions();
  }

  markSeen() {
    for (const q of this.state.questions) this.seen.add(q.id);
    this.renderUnread();
    this.renderQuestions();
  }

  renderUnread() {
    const unread = this.state.questions.filter((q) => !this.seen.has(q.id)).length;
    this.unreadBadge.textContent = String(unread);
    this.unreadBadge.hidden = unread === 0;
    this.unreadBadge.dataset.count = String(unread);
    this.tab.setAttribute('aria-label', unread ? t('questions.tab-unread', { count: unread }) : t('panel.tab-questions'));
    const chip = document.getElementById('code-chip');
    if (chip) chip.dataset.unread = String(unread);
  }

  renderQuestions() {
    if (!this.questionList) return;
    const all = this.state.questions.slice();
    const open = all.filter((q) => !q.answered).length;
    const count = this.container.querySelector('[data-role=question-count]');
    if (count) count.textContent = all.length ? t('questions.count', { open, all: all.length }) : '';
    let list = this.hideAnswered && this.hideAnswered.checked ? all.filter((q) => !q.answered) : all;
    const mode = this.state.questionMode;
    const approving = Boolean(mode.public && mode.approval);
    const byTime = (a, b) => Date.parse(b.askedAt) - Date.parse(a.askedAt);
    const who = (q) => (q.anonymous ? '\uffff' : (q.name || '').toLowerCase());
    if (this.sortBy === 'slide') list.sort((a, b) => (a.page || 1e9) - (b.page || 1e9) || byTime(a, b));
    else if (this.sortBy === 'viewer') list.sort((a, b) => who(a).localeCompare(who(b)) || byTime(a, b));
    else list.sort(byTime);
    this.questionList.replaceChildren();
    if (!list.length) {
      this.questionList.append(el('li', { class: 'pane-empty' }, [
        el('strong', { text: all.length ? t('questions.all-answered') : t('questions.none') }),
        el('span', { text: t('questions.ask-hint') }),
      ]));
      return;
    }
    let group = null;
    for (const q of list) {
      if (this.sortBy !== 'time') {
        const key = this.sortBy === 'slide' ? (q.page ? t('questions.group-slide', { page: q.page }) : t('questions.not-about-slide')) : q.anonymous ? t('common.anonymous') : q.name || t('questions.guest');
        if (key !== group) {
          group = key;
          this.questionList.append(el('li', { class: 'question-group', text: key }));
        }
      }
      const name = q.anonymous ? t('common.anonymous') : q.name || t('questions.guest');
      const slide = q.page ? el('button', {
        class: 'slide-badge', text: t('questions.page-badge', { page: q.page }),
        attrs: { type: 'button', title: t('notes.go-to', { page: q.page }), 'aria-label': t('notes.go-to', { page: q.page }), 'data-action': 'goto-question-page' },
        on: { click: () => this.gotoPage(q.page) },
      }) : null;
      const mark = el('button', {
        class: 'btn btn-sm mark-answered', attrs: { type: 'button', 'aria-pressed': String(q.answered), 'data-action': 'mark-answered' },
        on: { click: () => this.send({ type: 'markQuestion', questionId: q.id, answered: !q.answered }).catch(() => {}) },
      }, [icon('check', 14), el('span', { text: q.answered ? t('questions.answered') : t('questions.mark-answered') })]);
      const votes = mode.public ? el('span', {
        class: 'vote-count', text: '▲ ' + formatNumber(q.votes || 0),
        attrs: { 'data-role': 'votes', title: t('questions.upvotes', { count: q.votes || 0 }), 'aria-label': t('questions.upvotes', { count: q.votes || 0 }) },
      }) : null;
      const approve = approving ? el('button', {
        class: 'btn btn-sm approve-btn', attrs: { type: 'button', 'aria-pressed': String(Boolean(q.approved)), 'data-action': 'approve-question', title: q.approved ? t('questions.unapprove-title') : t('questions.approve-title') },
        on: { click: () => this.send({ type: 'approveQuestion', questionId: q.id, approved: !q.approved }).catch(() => {}) },
      }, [icon(q.approved ? 'x' : 'check', 14), el('span', { text: q.approved ? t('questions.unapprove') : t('questions.approve') })]) : null;
      // On screen for everyone: never a question that still waits for approval.
      const showable = !mode.approval || q.approved;
      const screen = showable ? this.onScreen.button({ kind: 'question', questionId: q.id }, t('spot.show')) : null;
      this.questionList.append(el('li', {
        class: 'question-item' + (q.answered ? ' is-answered' : '') + (this.seen.has(q.id) ? '' : ' is-new') + (approving && !q.approved ? ' is-pending' : ''),
        data: { questionId: q.id, anonymous: String(Boolean(q.anonymous)), answered: String(Boolean(q.answered)), approved: String(Boolean(q.approved)), votes: q.votes || 0 },
      }, [
        el('p', { class: 'question-text', text: q.text }),
        el('div', { class: 'question-meta' }, [
          el('span', { class: 'question-name' + (q.anonymous ? ' is-anonymous' : ''), text: name, attrs: { 'data-role': 'asker' } }),
          el('span', { class: 'question-time', text: timeAgo(q.askedAt) }),
          slide,
          votes,
          el('span', { class: 'meta-spacer' }),
          approve,
          screen,
          mark,
        ]),
      ]));
    }
  }
}
