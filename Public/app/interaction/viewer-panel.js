// The viewer's side of audience interaction: the poll sheet (answer, change until closed, see
// the reveal and the results), shared open answers, and "Ask a question".
//
// What stays on a phone (#36): an open poll's card (folded to its pill while something is on
// screen, so the card never covers the spotlight); once closed, a short "thanks" and then nothing,
// unless there is something to see — the right answer, the results the presenter shows to
// everyone, shared answers, quiz points; nothing of a poll or a question once the session ends.
//
// State for tests and CSS: #poll-sheet[data-poll-id][data-poll-status][data-answered]
// [data-collapsed]; options .poll-option[data-index][data-correct][data-mine]; the chart's rows
// .bar-row[data-count][data-correct][data-mine]; <body data-poll-status> (none when no card nor
// pill shows) and <body data-poll-pill>.

import { t, errorText } from '../core/i18n.js';
import { el, toast, icon, modalDialog } from '../core/ui.js';
import { PublicQuestions } from './viewer-questions.js';
import { InteractionState, barChart, leaderboardList, ordinal, formatNumber, pollTitle } from './state.js';

const MAX_ANSWER = 500;
const MAX_QUESTION = 500;
/** How long a closed poll's card stays to say "thanks" before it leaves. */
const THANKS_MS = 4000;

/** Whether the audience sees the poll's chart on their own device (docs/protocol.md, "Polls"). */
export function resultsShown(entry) {
  return Boolean(entry && (entry.resultsRevealed || entry.poll.showResults));
}

export class ViewerInteraction {
  /**
   * @param {{watch: HTMLElement, bar: HTMLElement, stage: HTMLElement}} dom
   */
  constructor({ watch, bar, stage }) {
    this.watch = watch;
    this.stage = stage;
    this.live = null;
    this.state = null;
    this.shownId = null; // poll id the sheet is built for
    this.collapsed = false;
    this.dismissed = new Set(); // "id:status" the viewer closed
    this.drafts = new Map(); // poll id -> {choices:Set} | {text}
    this.sending = false;
    this.thanksFor = null; // the poll whose card says "closed — thanks" for a moment
    this.thanksTimer = null;
    this.spotKey = null; // what is on screen, as last rendered
    this.foldedForSpot = false; // the open poll's card was folded because something went on screen
    this.unfolded = null; // the poll the viewer opened again while something is on screen
    this.bar = bar;
    this.buildSheet();
    this.buildAsk(bar);
    this.publicQuestions = new PublicQuestions({ bar, after: this.askButton, ask: () => this.openAsk() });
    // What sits above the bar (the pill, the way back, the spotlight's edge) follows its height:
    // on a phone the bar has two or three lines.
    new ResizeObserver(() => this.fitStage()).observe(bar);
  }

  /** Follows a (new) LiveClient. */
  attach(live) {
    this.live = live;
    if (!this.state) {
      this.state = new InteractionState(live);
      this.state.addEventListener('update', (e) => this.onUpdate(e.detail));
    } else {
      this.state.attach(live);
    }
    this.publicQuestions.attach(this.state, live);
    live.addEventListener('change', (e) => {
      const type = e.detail.event.type;
      if (type === 'ended') {
        // Nothing of a poll or a question stays: the card, the pill, the question forms.
        for (const dialog of document.querySelectorAll('#ask-dialog[open]')) dialog.close();
        this.publicQuestions.render();
      }
      if (type === 'ended' || type === 'spotlight') this.render();
    });
  }

  onUpdate({ kind, event }) {
    if (kind === 'polls' && event) {
      if (event.type === 'pollOpened') {
        this.collapsed = false;
        this.drafts.delete(event.poll.id);
      } else if (event.type === 'pollRevealed' || event.type === 'answerShared' || (event.type === 'resultsShown' && event.shown)) {
        // Something new to see: bring the sheet back up.
        this.collapsed = false;
      } else if (event.type === 'pollClosed') {
        // A card in view says "closed — thanks" for a moment, then leaves; a folded one just goes.
        const latest = this.state.latest;
        if (latest && latest.poll.id === event.pollId && !this.collapsed && this.shownId === event.pollId) {
          this.thanksFor = event.pollId;
          clearTimeout(this.thanksTimer);
          this.thanksTimer = setTimeout(() => {
            this.thanksFor = null;
            this.render();
          }, THANKS_MS);
        }
        this.collapsed = false;
      }
    }
    if (kind === 'leaderboard') {
      // New scores after a quiz question: show them.
      const latest = this.state.latest;
      if (latest && latest.poll.quiz && latest.status !== 'open') this.collapsed = false;
    }
    if (kind === 'welcome') {
      const latest = this.state.latest;
      if (latest && latest.status === 'open' && this.shownId !== latest.poll.id) this.collapsed = false;
    }
    this.render();
  }

  // ---- the poll sheet ----

  buildSheet() {
    this.pill = el('button', {
      class: 'poll-pill', attrs: { type: 'button', id: 'poll-pill', 'aria-controls': 'poll-sheet' },
      on: {
        click: () => {
          this.collapsed = false;
          if (this.spotKey && this.state.latest) this.unfolded = this.state.latest.poll.id;
          this.render();
          this.focusSheet();
        },
      },
    }, [icon('chart', 18), el('span', { class: 'poll-pill-text' })]);
    this.pill.hidden = true;
    this.sheet = el('section', { class: 'poll-sheet', attrs: { id: 'poll-sheet', 'aria-label': t('poll.label'), 'aria-live': 'polite', tabindex: '-1' } });
    this.sheet.hidden = true;
    this.watch.append(this.sheet, this.pill);
    // Arrow keys on a choice move between choices; they must not turn the page too.
    this.sheet.addEventListener('keydown', (event) => {
      if (event.target instanceof HTMLInputElement) event.stopPropagation();
    });
    this.narrow = window.matchMedia('(max-width: 699px), (max-aspect-ratio: 1/1)');
    this.narrow.addEventListener('change', () => this.fitStage());
    document.addEventListener('fullscreenchange', () => this.fitStage());
    new ResizeObserver(() => this.fitStage()).observe(this.sheet);
  }

  /** On a phone or a tablet held upright the sheet docks on the bar's top edge (the bar stays in
   *  reach): the slide moves up above the sheet. */
  fitStage() {
    // The bar's height, for what sits above it (the sheet, the pill, the spotlight's edge: CSS).
    const bar = this.bar.offsetHeight;
    if (bar) this.watch.style.setProperty('--bar-h', bar + 'px');
    const docked = !this.sheet.hidden && this.narrow.matches;
    const height = docked ? this.sheet.offsetHeight : 0;
    // In full screen the bar floats over the slide's bottom edge, so the slide makes room for
    // the bar too; otherwise it already ends at the bar's top.
    const floating = getComputedStyle(this.bar).position === 'absolute';
    const margin = height ? height + (floating ? bar : 0) : 0;
    const value = margin ? margin + 'px' : '';
    if (this.stage.style.marginBottom !== value) this.stage.style.marginBottom = value;
    // "Back to the presenter's slide" sits just above the sheet, or above the bar and the pill.
    const follow = document.getElementById('follow');
    const above = height ? bar + height : this.narrow.matches && bar ? bar + (this.pill.hidden ? 0 : 56) : 0;
    if (follow) follow.style.bottom = above ? above + 12 + 'px' : '';
  }

  focusSheet() {
    const target = this.sheet.querySelector('input:not(:disabled), textarea:not(:disabled)') || this.sheet;
    try {
      target.focus({ preventScroll: true });
    } catch (_) {
      // ignore
    }
  }

  /** What the viewer put away stays away until something new happens to the poll. */
  key(entry) {
    return entry.poll.id + ':' + entry.status + ':' + entry.shared.length + ':' + resultsShown(entry);
  }

  /** Whether a poll that no longer takes answers has anything to show: else its card leaves. */
  hasNews(entry) {
    if (entry.status === 'revealed' || entry.shared.length || resultsShown(entry)) return true;
    return Boolean(entry.poll.quiz && (this.state.leaderboard || this.state.myScore));
  }

  /** The poll the sheet shows: the newest one, unless the viewer put it away or it is over. */
  current() {
    const latest = this.state && this.state.latest;
    if (!latest) return null;
    if (this.live && this.live.state.ended) return null;
    if (this.dismissed.has(this.key(latest))) return null;
    if (latest.status !== 'open' && !this.hasNews(latest) && this.thanksFor !== latest.poll.id) return null;
    return latest;
  }

  render() {
    // Asking ends with the session.
    this.askButton.hidden = Boolean(this.live && this.live.state.ended);
    const entry = this.current();
    // Something on screen for everyone: it has the phone's screen. An open poll folds to its
    // pill (still one tap away), anything else about a poll waits until it goes.
    const spot = this.live && this.live.state.spotlight;
    const spotKey = spot ? [spot.kind, spot.pollId, spot.questionId].join(':') : null;
    if (spotKey !== this.spotKey) {
      this.unfolded = null;
      if (!spotKey && this.foldedForSpot) {
        this.collapsed = false;
        this.foldedForSpot = false;
      }
      this.spotKey = spotKey;
    }
    // Folded while on screen, unless the viewer opened it again (a tap on the pill).
    if (spotKey && entry && entry.status === 'open' && !this.collapsed && this.unfolded !== entry.poll.id) {
      this.collapsed = true;
      this.foldedForSpot = true;
    }
    const shown = entry && !(spot && entry.status !== 'open') ? entry : null;
    document.body.dataset.pollStatus = shown ? shown.status : 'none';
    if (!shown) {
      this.sheet.hidden = true;
      this.pill.hidden = true;
      document.body.dataset.pollPill = 'false';
      if (!entry) this.shownId = null;
      this.fitStage();
      return;
    }
    const { poll } = entry;
    if (this.shownId !== poll.id) this.buildPoll(entry);
    this.updatePoll(entry);
    this.sheet.hidden = this.collapsed;
    this.pill.hidden = !this.collapsed;
    document.body.dataset.pollPill = String(this.collapsed);
    this.fitStage();
    const answered = this.state.myAnswers.has(poll.id);
    this.pill.querySelector('.poll-pill-text').textContent = entry.status === 'open'
      ? (answered ? t('poll.pill-open-sent') : t('poll.pill-open'))
      : entry.status === 'revealed' ? t('poll.pill-revealed') : t('poll.pill-closed');
    this.pill.classList.toggle('is-attention', entry.status === 'open' && !answered);
  }

  buildPoll(entry) {
    const { poll } = entry;
    this.shownId = poll.id;
    this.sheet.dataset.pollId = String(poll.id);
    const collapse = el('button', {
      class: 'sheet-icon-btn', attrs: { type: 'button', 'aria-label': t('poll.hide'), title: t('poll.hide-short'), 'data-action': 'collapse-poll' },
      on: { click: () => this.hideSheet() },
    }, [icon('chevronDown', 20)]);
    this.statusChip = el('span', { class: 'poll-chip' });
    // Named as on the presenter's screen: by its place in the session ("Poll 2"), never its id.
    const label = pollTitle(this.state.polls, poll.id).label;
    const kicker = poll.quiz ? [icon('trophy', 16), el('span', { text: t('poll.quiz-label', { label }) })] : [icon('chart', 16), el('span', { text: label })];
    const head = el('div', { class: 'sheet-head' }, [el('span', { class: 'sheet-kicker', attrs: { 'data-role': 'poll-label' } }, kicker), this.statusChip, collapse]);
    const question = el('h2', { class: 'poll-question', text: poll.question, attrs: { id: 'poll-q-' + poll.id } });
    this.form = el('form', { class: 'poll-form', attrs: { 'aria-labelledby': 'poll-q-' + poll.id, novalidate: true } });
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    this.options = [];
    if (poll.kind === 'choice') {
      const group = el('div', { class: 'poll-options', attrs: { role: poll.multiple ? 'group' : 'radiogroup', 'aria-labelledby': 'poll-q-' + poll.id } });
      if (poll.multiple) group.append(el('p', { class: 'poll-hint', text: t('poll.pick-several') }));
      poll.choices.forEach((choice, index) => {
        const input = el('input', { attrs: { type: poll.multiple ? 'checkbox' : 'radio', name: 'poll-' + poll.id, value: index } });
        input.addEventListener('change', () => this.onPick(poll, index, input.checked));
        const label = el('label', { class: 'poll-option', data: { index } }, [
          input,
          el('span', { class: 'poll-option-box', attrs: { 'aria-hidden': 'true' } }),
          el('span', { class: 'poll-option-text', text: choice }),
          el('span', { class: 'poll-option-mark', attrs: { 'aria-hidden': 'true' } }),
        ]);
        this.options.push({ label, input });
        group.append(label);
      });
      this.form.append(group);
      this.textField = null;
    } else {
      this.textField = el('textarea', { class: 'input poll-text', attrs: { rows: 3, maxlength: MAX_ANSWER, placeholder: t('poll.your-answer'), 'aria-label': t('poll.your-answer') } });
      this.textField.addEventListener('input', () => {
        this.drafts.set(poll.id, { text: this.textField.value });
        this.updateButton(this.state.poll(poll.id));
      });
      this.form.append(this.textField);
    }
    this.submitButton = el('button', { class: 'btn btn-primary btn-block', attrs: { type: 'submit', 'data-action': 'submit-answer' } });
    this.note = el('p', { class: 'poll-note', attrs: { 'data-role': 'poll-note' } });
    this.form.append(this.submitButton);
    this.results = el('div', { class: 'poll-results' });
    this.sharedBox = el('div', { class: 'shared-answers' });
    this.quizBox = el('div', { class: 'quiz-box', attrs: { 'data-role': 'quiz' } });
    const body = el('div', { class: 'sheet-body' }, [question, this.form, this.note, this.results, this.sharedBox, this.quizBox]);
    this.sheet.replaceChildren(head, body);
  }

  hideSheet() {
    const entry = this.current();
    if (!entry) return;
    if (entry.status === 'open') {
      this.collapsed = true;
    } else {
      // A finished poll: put it away until something new happens to it.
      this.dismissed.add(this.key(entry));
      this.collapsed = false;
    }
    this.render();
  }

  onPick(poll, index, checked) {
    const draft = this.draftChoices(poll);
    if (poll.multiple) {
      if (checked) draft.add(index);
      else draft.delete(index);
    } else {
      draft.clear();
      if (checked) draft.add(index);
    }
    this.drafts.set(poll.id, { choices: draft });
    this.updatePoll(this.state.poll(poll.id));
  }

  draftChoices(poll) {
    const draft = this.drafts.get(poll.id);
    if (draft && draft.choices) return new Set(draft.choices);
    const mine = this.state.myAnswers.get(poll.id);
    return new Set(mine && mine.choices ? mine.choices : []);
  }

  /** True when the draft differs from what the server holds. */
  changed(poll) {
    const mine = this.state.myAnswers.get(poll.id);
    if (poll.kind === 'choice') {
      const draft = [...this.draftChoices(poll)].sort((a, b) => a - b);
      const held = mine && mine.choices ? mine.choices.slice().sort((a, b) => a - b) : [];
      return draft.length > 0 && draft.join(',') !== held.join(',');
    }
    const draft = this.drafts.get(poll.id);
    const text = (draft ? draft.text : (mine && mine.text) || '').trim();
    return text.length > 0 && text !== ((mine && mine.text) || '').trim();
  }

  updateButton(entry) {
    if (!entry) return;
    const { poll } = entry;
    const open = entry.status === 'open' && !(this.live && this.live.state.ended);
    const answered = this.state.myAnswers.has(poll.id);
    // Once sent, the button comes back only when the viewer picks something else.
    this.submitButton.hidden = !open || (answered && !this.changed(poll) && !this.sending);
    this.submitButton.disabled = this.sending || !this.changed(poll);
    this.submitButton.textContent = this.sending ? t('poll.sending') : answered ? t('poll.change-answer') : t('poll.send-answer');
  }

  updatePoll(entry) {
    if (!entry) return;
    const { poll, status } = entry;
    const mine = this.state.myAnswers.get(poll.id) || null;
    const open = status === 'open' && !(this.live && this.live.state.ended);
    this.sheet.dataset.pollStatus = status;
    this.sheet.dataset.answered = String(Boolean(mine));
    this.sheet.dataset.collapsed = String(this.collapsed);
    this.statusChip.textContent = open ? t('poll.status-open') : status === 'revealed' ? t('poll.status-revealed') : t('poll.status-closed');
    this.statusChip.className = 'poll-chip ' + (open ? 'is-open' : status === 'revealed' ? 'is-revealed' : 'is-closed');
    const revealed = status === 'revealed';
    const correct = revealed ? poll.correct || [] : [];
    const results = this.state.results.get(poll.id);
    const showResults = Boolean(results) && resultsShown(entry);

    if (poll.kind === 'choice') {
      const draft = this.draftChoices(poll);
      const held = new Set(mine && mine.choices ? mine.choices : []);
      this.options.forEach(({ label, input }, index) => {
        input.checked = open ? draft.has(index) : held.has(index);
        input.disabled = !open;
        const isCorrect = revealed && correct.includes(index);
        label.dataset.mine = String(held.has(index));
        label.dataset.correct = String(isCorrect);
        label.dataset.wrong = String(revealed && correct.length > 0 && held.has(index) && !isCorrect);
        const mark = label.querySelector('.poll-option-mark');
        mark.replaceChildren();
        if (isCorrect) mark.append(el('span', { class: 'tag tag-correct', text: t('spotlight.right-answer') }));
        if (held.has(index) && !open) mark.append(el('span', { class: 'tag tag-mine', text: t('poll.you') }));
      });
      // Once the chart is there it carries the choices: the list would say it twice.
      this.form.hidden = !open && showResults;
    } else {
      if (this.textField) {
        const draft = this.drafts.get(poll.id);
        if (document.activeElement !== this.textField) this.textField.value = draft ? draft.text : (mine && mine.text) || '';
        this.textField.disabled = !open;
      }
      this.form.hidden = !open && !mine;
    }
    this.updateButton(entry);

    // The line under the form.
    let note = '';
    let noteKind = '';
    if (open && mine) {
      note = t('poll.note-sent');
      noteKind = 'ok';
    } else if (open) {
      note = poll.kind === 'choice' ? (poll.multiple ? t('poll.note-tick') : t('poll.note-pick')) : t('poll.note-type');
      if (poll.quiz) note += ' ' + t('poll.quiz-note');
    } else if (status === 'closed' && this.thanksFor === poll.id && !this.hasNews(entry)) {
      note = mine ? t('poll.note-closed-thanks') : t('poll.note-closed');
    } else if (status === 'closed') {
      note = mine ? t('poll.note-closed-counts') : t('poll.note-closed');
    } else if (revealed) {
      if (poll.kind === 'choice' && correct.length) {
        const right = mine && mine.choices && mine.choices.length && mine.choices.every((c) => correct.includes(c))
          && correct.every((c) => mine.choices.includes(c));
        note = !mine ? t('poll.note-not-answered') : right ? t('poll.note-right') : t('poll.note-wrong');
        noteKind = mine && right ? 'ok' : '';
      } else {
        note = t('poll.note-closed');
      }
    }
    this.note.textContent = note;
    this.note.dataset.kind = noteKind;
    this.note.hidden = !note;

    // The chart, when the audience may see it.
    if (poll.kind === 'choice' && showResults) {
      const chart = barChart({
        choices: poll.choices, counts: results.counts, answered: results.answered,
        correct: revealed ? correct : null, mine: mine && mine.choices ? mine.choices : null,
      });
      this.results.replaceChildren(
        el('p', { class: 'poll-rate', text: t('poll.answers', { count: results.answered || 0 }) }),
        chart,
      );
      this.results.hidden = false;
    } else {
      this.results.replaceChildren();
      this.results.hidden = true;
    }

    // Open answers the presenter shared.
    this.sharedBox.replaceChildren(...entry.shared.map((s) => el('blockquote', { class: 'shared-answer', data: { answerId: s.answerId } }, [
      icon('quote', 18), el('span', { text: s.text }),
    ])));
    this.sharedBox.hidden = entry.shared.length === 0;
    this.renderQuiz(entry);
  }

  /** After a quiz question: the viewer's own score and rank, and the top ten. */
  renderQuiz(entry) {
    const box = this.quizBox;
    const board = this.state.leaderboard;
    const mine = this.state.myScore;
    if (!entry.poll.quiz || entry.status === 'open' || (!board && !mine)) {
      box.replaceChildren();
      box.hidden = true;
      return;
    }
    const players = (mine && mine.players) || (board && board.players) || 0;
    const score = mine ? mine.score : 0;
    const standing = mine && mine.rank ? t('poll.rank-of', { rank: ordinal(mine.rank), players }) : players ? t('poll.not-on-board') : '';
    const card = el('div', { class: 'my-score', attrs: { 'data-role': 'my-score', 'data-score': score, 'data-rank': (mine && mine.rank) || '', 'data-players': players } }, [
      icon('trophy', 22),
      el('span', { class: 'my-score-text' }, [
        el('strong', { text: t('poll.my-points', { count: score }) }),
        standing ? el('span', { text: ' — ' + standing }) : null,
      ]),
    ]);
    box.replaceChildren(card, el('h3', { class: 'quiz-box-title', text: t('poll.leaderboard') }), leaderboardList(board, { highlight: mine && mine.rank ? mine : null }));
    box.hidden = false;
  }

  async submit() {
    const entry = this.current();
    if (!entry || entry.status !== 'open' || !this.live || this.sending) return;
    const { poll } = entry;
    const command = { type: 'answer', pollId: poll.id };
    if (poll.kind === 'choice') {
      command.choices = [...this.draftChoices(poll)].sort((a, b) => a - b);
      if (!command.choices.length) return;
    } else {
      const text = (this.textField.value || '').trim();
      if (!text) return;
      command.text = text;
    }
    this.sending = true;
    this.updateButton(entry);
    try {
      await this.live.send(command);
      // The server's myAnswer message follows; keep the draft in step with it meanwhile.
      const answer = command.choices ? { choices: command.choices } : { text: command.text };
      if (!this.state.myAnswers.has(poll.id) || this.changed(poll)) this.state.myAnswers.set(poll.id, answer);
      this.drafts.delete(poll.id);
      if (this.textField && document.activeElement === this.textField) this.textField.blur();
    } catch (error) {
      const text = error && error.code ? errorText(error) : t('poll.not-sent');
      toast(text, { kind: 'error' });
    } finally {
      this.sending = false;
      this.render();
    }
  }

  // ---- asking a question ----

  buildAsk(bar) {
    this.askButton = el('button', {
      class: 'btn', attrs: { type: 'button', id: 'ask-button', 'aria-label': t('ask.label'), title: t('ask.title') },
      on: { click: () => this.openAsk() },
    }, [icon('message', 18), el('span', { class: 'btn-label', text: t('ask.button') })]);
    const status = bar.querySelector('#status');
    bar.insertBefore(this.askButton, status ? status.nextSibling : null);
  }

  openAsk() {
    if (!this.live) return;
    if (this.live.state.ended) {
      toast(t('ask.closed'));
      return;
    }
    const page = this.stage.page || this.live.state.page;
    const text = el('textarea', {
      class: 'input ask-text', attrs: { id: 'ask-text', rows: 4, maxlength: MAX_QUESTION, required: true, placeholder: t('ask.placeholder'), 'aria-describedby': 'ask-count' },
    });
    const count = el('span', { class: 'field-hint ask-count', text: t('ask.count', { length: 0, max: MAX_QUESTION }), attrs: { id: 'ask-count' } });
    const aboutBox = el('input', { attrs: { type: 'checkbox', id: 'ask-about-slide', checked: true } });
    const anonBox = el('input', { attrs: { type: 'checkbox', id: 'ask-anonymous' } });
    const error = el('p', { class: 'form-error', attrs: { role: 'alert' } });
    const cancel = el('button', { class: 'btn', text: t('common.cancel'), attrs: { type: 'button' } });
    const send = el('button', { class: 'btn btn-primary', attrs: { type: 'submit', id: 'ask-send', disabled: true } }, [icon('send', 18), el('span', { text: t('ask.send') })]);
    text.addEventListener('input', () => {
      count.textContent = t('ask.count', { length: text.value.length, max: MAX_QUESTION });
      send.disabled = !text.value.trim();
    });
    const { dialog, content: form } = modalDialog({
      title: t('ask.dialog-title'), id: 'ask-dialog', cls: 'ask-dialog', form: true, contentCls: 'ask-form', open: false,
      actions: [cancel, send], body: [
        el('label', { class: 'field', attrs: { for: 'ask-text' } }, [el('span', { class: 'field-label', text: t('ask.your-question') }), text, count]),
        el('label', { class: 'check', attrs: { for: 'ask-about-slide' } }, [aboutBox, el('span', { text: t('ask.about-slide', { page }) })]),
        el('label', { class: 'check', attrs: { for: 'ask-anonymous' } }, [anonBox, el('span', { text: t('ask.anonymously') }),
          el('span', { class: 'field-hint', text: ' ' + t('ask.anonymously-hint') })]),
        error,
      ],
    });
    cancel.addEventListener('click', () => dialog.close());
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const question = text.value.trim();
      if (!question) {
        text.focus();
        return;
      }
      const command = { type: 'ask', text: question, anonymous: anonBox.checked };
      if (aboutBox.checked) command.page = page;
      send.disabled = true;
      error.textContent = '';
      try {
        await this.live.send(command);
        dialog.close();
        toast(anonBox.checked ? t('ask.sent-anonymously') : t('ask.sent'), { kind: 'success' });
      } catch (failure) {
        error.textContent = failure && (failure.code || failure.message) ? errorText(failure) : t('ask.not-sent');
        send.disabled = false;
      }
    });
    dialog.showModal();
    text.focus();
  }
}

export function mountViewerInteraction(dom) {
  return new ViewerInteraction(dom);
}
