// The presenter's side of audience interaction, in the console's side panel: tabs Join · Polls ·
// Questions · Viewers; the deck's question bank and the poll editor; the active poll with its
// live chart, response rate, open answers and word cloud; the audience's questions; the viewer
// list; and a "viewers follow me" toggle in the toolbar.
//
// State for tests and CSS: #active-poll[data-poll-id][data-poll-status]; .bar-row[data-count];
// [data-role=response-rate][data-answered][data-connected]; .question-item[data-question-id]
// [data-anonymous][data-answered]; .tab-badge[data-role=unread]; [data-action=lock][aria-pressed].

import { api } from './api.js';
import { el, toast, confirmDialog } from './ui.js';
import { InteractionState, barChart, wordCloud, percent, timeAgo, icon2, leaderboardList } from './interaction.js';

const MIN_CHOICES = 2;
const MAX_CHOICES = 8;

function kindLabel(poll) {
  if (poll.kind === 'open') return 'Open text';
  return (poll.quiz ? 'Quiz · ' : '') + (poll.multiple ? 'Several answers' : 'Multiple choice') + ' · ' + poll.choices.length + ' choices';
}

export class PresenterInteraction {
  /**
   * @param {object} o
   * @param {import('./live.js').LiveClient} o.live
   * @param {string} o.code
   * @param {string|null} o.deckId
   * @param {(page:number)=>void} o.gotoPage
   * @param {HTMLElement} o.panel     the console's side panel (#join-panel)
   * @param {HTMLElement} o.controls  the toolbar (#controls)
   * @param {HTMLInputElement} o.lockSwitch  the existing "viewers follow my slide" switch
   */
  constructor(o) {
    this.live = o.live;
    this.code = o.code;
    this.deckId = o.deckId || null;
    this.gotoPage = o.gotoPage;
    this.panel = o.panel;
    this.lockSwitch = o.lockSwitch;
    this.bank = [];
    this.bankLoaded = false;
    this.seen = new Set(); // question ids the presenter has seen
    this.seenReady = false;
    this.sortBy = 'time';
    this.tab = 'join';
    this.state = new InteractionState(this.live);
    this.state.addEventListener('update', (e) => this.onUpdate(e.detail));
    this.buildTabs();
    this.buildLock(o.controls);
    this.live.addEventListener('change', (e) => {
      this.renderLock();
      if (e.detail.event.type === 'ended') this.renderQuestionMode();
    });
    this.live.addEventListener('sync', () => this.renderLock());
    this.live.addEventListener('welcome', () => this.renderLock());
    this.loadBank();
    // "3 min ago" moves on while the list is on screen.
    setInterval(() => {
      if (this.tab === 'questions' && this.state.questions.length) this.renderQuestions();
    }, 30000);
  }

  // ---- tabs ----

  buildTabs() {
    const panel = this.panel;
    panel.classList.add('has-tabs');
    const closeButton = panel.querySelector('#close-join');
    const joinPane = el('div', { class: 'side-pane', attrs: { id: 'pane-join', role: 'tabpanel', 'aria-labelledby': 'tab-join' } });
    for (const child of [...panel.children]) if (child !== closeButton) joinPane.append(child);
    this.panes = {
      join: joinPane,
      polls: el('div', { class: 'side-pane', attrs: { id: 'pane-polls', role: 'tabpanel', 'aria-labelledby': 'tab-polls' } }),
      questions: el('div', { class: 'side-pane', attrs: { id: 'pane-questions', role: 'tabpanel', 'aria-labelledby': 'tab-questions' } }),
      viewers: el('div', { class: 'side-pane', attrs: { id: 'pane-viewers', role: 'tabpanel', 'aria-labelledby': 'tab-viewers' } }),
    };
    const labels = { join: 'Join', polls: 'Polls', questions: 'Questions', viewers: 'Viewers' };
    this.tabs = {};
    const bar = el('div', { class: 'side-tabs', attrs: { role: 'tablist', 'aria-label': 'Side panel' } });
    for (const name of Object.keys(labels)) {
      const tab = el('button', {
        class: 'side-tab', text: labels[name],
        attrs: { type: 'button', role: 'tab', id: 'tab-' + name, 'aria-controls': 'pane-' + name, 'data-tab': name },
        on: { click: () => this.showTab(name) },
      });
      this.tabs[name] = tab;
      bar.append(tab);
    }
    this.unreadBadge = el('span', { class: 'tab-badge', attrs: { 'data-role': 'unread', 'aria-label': 'unread questions' } });
    this.unreadBadge.hidden = true;
    this.tabs.questions.append(this.unreadBadge);
    bar.addEventListener('keydown', (event) => {
      const names = Object.keys(labels);
      const at = names.indexOf(this.tab);
      if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
        event.preventDefault();
        event.stopPropagation();
        const next = names[(at + (event.key === 'ArrowRight' ? 1 : names.length - 1)) % names.length];
        this.showTab(next);
        this.tabs[next].focus();
      }
    });
    const head = el('div', { class: 'side-head' }, [bar]);
    if (closeButton) head.append(closeButton);
    panel.replaceChildren(head, ...Object.values(this.panes));
    // Arrow keys on a radio button or check box belong to it, not to the slide show.
    panel.addEventListener('keydown', (event) => {
      const t = event.target;
      if (t instanceof HTMLInputElement && (t.type === 'radio' || t.type === 'checkbox')) event.stopPropagation();
    });
    this.buildPollsPane();
    this.buildQuestionsPane();
    this.buildViewersPane();
    this.showTab('join');
  }

  showTab(name) {
    this.tab = name;
    for (const [key, pane] of Object.entries(this.panes)) {
      pane.hidden = key !== name;
      this.tabs[key].setAttribute('aria-selected', String(key === name));
      this.tabs[key].tabIndex = key === name ? 0 : -1;
    }
    this.panel.dataset.tab = name;
    if (name === 'questions') this.markSeen();
  }

  // ---- navigation lock ----

  buildLock(controls) {
    this.lockButton = el('button', {
      class: 'btn lock-toggle', attrs: { type: 'button', 'data-action': 'lock', 'aria-pressed': 'true' },
      on: { click: () => this.lockSwitch.click() },
    }, [el('span', { class: 'lock-icon' }), el('span', { class: 'btn-label' })]);
    this.lockSwitch.addEventListener('change', () => this.renderLock(this.lockSwitch.checked));
    // In the console's bar, next to the viewer count: the toolbar below has no room to spare.
    const bar = document.querySelector('.console-bar');
    const end = document.getElementById('end-session');
    if (bar && end) bar.insertBefore(this.lockButton, end);
    else controls.append(this.lockButton);
    this.renderLock();
  }

  renderLock(locked = this.live.state.locked !== false) {
    const label = locked ? 'Viewers follow me' : 'Viewers browse freely';
    this.lockButton.setAttribute('aria-pressed', String(locked));
    this.lockButton.dataset.locked = String(locked);
    this.lockButton.title = locked ? 'Viewers follow your slide. Click to let them browse.' : 'Viewers browse on their own. Click to make them follow you.';
    this.lockButton.setAttribute('aria-label', label);
    this.lockButton.querySelector('.lock-icon').replaceChildren(icon2(locked ? 'lock' : 'unlock', 18));
    this.lockButton.querySelector('.btn-label').textContent = label;
    this.lockButton.disabled = Boolean(this.live.state.ended) || this.lockSwitch.disabled;
  }

  // ---- sending ----

  async send(command, failure = 'Not sent.') {
    try {
      return await this.live.send(command);
    } catch (error) {
      toast((error && error.message) || failure, { kind: 'error' });
      throw error;
    }
  }

  onUpdate({ kind, added, event }) {
    if (kind === 'questions' || kind === 'welcome') {
      if (kind === 'welcome' && !this.seenReady) {
        // Questions asked before this console opened count as unread too.
        this.seenReady = true;
      }
      if (kind === 'questions' && added && added.length) {
        const q = added[added.length - 1];
        if (!(this.tab === 'questions' && this.panelVisible())) {
          toast('New question' + (q.anonymous ? '' : ' from ' + (q.name || 'a viewer')) + ': ' + (q.text.length > 80 ? q.text.slice(0, 79) + '…' : q.text));
        }
      }
      if (this.tab === 'questions' && this.panelVisible()) this.markSeen();
      this.renderQuestions();
      this.renderUnread();
    }
    if (kind === 'viewers' || kind === 'welcome') this.renderViewers();
    if (kind === 'polls' || kind === 'results' || kind === 'welcome' || kind === 'leaderboard') this.renderActive();
    if (kind === 'leaderboard' || kind === 'welcome') this.renderLeaderboardScreen();
    if (kind === 'questionMode' || kind === 'welcome') this.renderQuestionMode();
    if (kind === 'polls' && event && event.type === 'pollOpened' && this.tab !== 'polls') this.showTab('polls');
  }

  panelVisible() {
    return this.panel.offsetParent !== null && getComputedStyle(this.panel).visibility !== 'hidden';
  }

  // ---- polls ----

  buildPollsPane() {
    const pane = this.panes.polls;
    this.activeBox = el('section', { class: 'active-poll', attrs: { id: 'active-poll', 'aria-live': 'polite' } });
    this.activeBox.hidden = true;
    const newButton = el('button', { class: 'btn btn-primary btn-sm', attrs: { type: 'button', 'data-action': 'new-question' }, on: { click: () => this.openEditor({ mode: 'new' }) } },
      [icon2('plus', 16), el('span', { text: 'New question' })]);
    const adhocButton = el('button', { class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'ask-adhoc' }, on: { click: () => this.openEditor({ mode: 'adhoc' }) } },
      [icon2('send', 16), el('span', { text: 'Ask without saving' })]);
    this.bankList = el('ul', { class: 'bank-list', attrs: { 'aria-label': 'Question bank' } });
    pane.append(
      this.activeBox,
      el('div', { class: 'pane-head' }, [el('h2', { text: 'Question bank' })]),
      el('div', { class: 'pane-actions' }, [newButton, adhocButton]),
      this.bankList,
    );
    this.renderBank();
  }

  async loadBank() {
    if (!this.deckId) {
      this.bankLoaded = true;
      this.renderBank();
      return;
    }
    try {
      this.bank = await api('/api/v1/decks/' + encodeURIComponent(this.deckId) + '/questions');
    } catch (error) {
      toast('Could not load the question bank: ' + error.message, { kind: 'error' });
      this.bank = [];
    }
    this.bankLoaded = true;
    this.renderBank();
  }

  renderBank() {
    const list = this.bankList;
    list.replaceChildren();
    if (!this.bankLoaded) {
      list.append(el('li', { class: 'pane-empty', text: 'Loading…' }));
      return;
    }
    if (!this.bank.length) {
      list.append(el('li', { class: 'pane-empty' }, [
        el('strong', { text: 'No prepared questions yet' }),
        el('span', { text: this.deckId ? 'Add one now: it is kept with this deck for next time.' : 'Ask one without saving.' }),
      ]));
      return;
    }
    this.bank.forEach((item, index) => {
      const poll = item.poll;
      const send = el('button', { class: 'btn btn-primary btn-sm', attrs: { type: 'button', 'data-action': 'send-poll', title: 'Ask the audience now' }, on: { click: () => this.openPoll(poll) } },
        [icon2('send', 16), el('span', { text: 'Send' })]);
      const edit = el('button', { class: 'btn btn-sm btn-icon-sm', attrs: { type: 'button', 'aria-label': 'Edit', title: 'Edit', 'data-action': 'edit-question' }, on: { click: () => this.openEditor({ mode: 'edit', item }) } }, [icon2('edit', 16)]);
      const remove = el('button', { class: 'btn btn-sm btn-icon-sm', attrs: { type: 'button', 'aria-label': 'Delete', title: 'Delete', 'data-action': 'delete-question' }, on: { click: () => this.deleteQuestion(item) } }, [icon2('trash', 16)]);
      list.append(el('li', { class: 'bank-item', data: { questionId: item.id } }, [
        el('div', { class: 'bank-text' }, [
          el('span', { class: 'bank-number', text: String(index + 1) }),
          el('div', {}, [el('p', { class: 'bank-question', text: poll.question }), el('p', { class: 'bank-meta', text: kindLabel(poll) + (poll.correct && poll.correct.length ? ' · answer set' : '') })]),
        ]),
        el('div', { class: 'bank-actions' }, [send, edit, remove]),
      ]));
    });
  }

  async deleteQuestion(item) {
    const ok = await confirmDialog({ title: 'Delete this question?', message: item.poll.question, confirmLabel: 'Delete', danger: true });
    if (!ok) return;
    try {
      await api('/api/v1/decks/' + encodeURIComponent(this.deckId) + '/questions/' + encodeURIComponent(item.id), { method: 'DELETE' });
      this.bank = this.bank.filter((q) => q.id !== item.id);
      this.renderBank();
    } catch (error) {
      toast(error.message, { kind: 'error' });
    }
  }

  /** Sends a poll. With `quiet`, a refusal is thrown (the editor shows it) instead of toasted. */
  async openPoll(poll, { quiet = false } = {}) {
    const clean = { kind: poll.kind, question: poll.question, showResults: Boolean(poll.showResults) };
    if (poll.kind === 'choice') {
      clean.choices = poll.choices;
      clean.multiple = Boolean(poll.multiple);
      clean.correct = poll.correct || [];
      if (poll.quiz) clean.quiz = true;
    }
    const open = this.state.polls.find((p) => p.status === 'open');
    if (open) {
      const ok = await confirmDialog({ title: 'Close the current poll?', message: '“' + open.poll.question + '” is still open. Sending a new one closes it.', confirmLabel: 'Close and send' });
      if (!ok) return false;
    }
    try {
      if (quiet) await this.live.send({ type: 'openPoll', poll: clean });
      else await this.send({ type: 'openPoll', poll: clean }, 'The poll was not sent.');
      this.showTab('polls');
      return true;
    } catch (error) {
      if (quiet) throw error;
      return false;
    }
  }

  /** The poll editor, in a dialog: new (save / save and send), edit (save), ad hoc (send). */
  openEditor({ mode, item = null }) {
    const start = item ? item.poll : { kind: 'choice', question: '', choices: ['', ''], multiple: false, correct: [], showResults: false };
    let kind = start.kind;
    const question = el('textarea', { class: 'input', attrs: { id: 'poll-question', rows: 2, maxlength: 500, required: true, placeholder: 'What do you want to ask?' } });
    question.value = start.question;
    const kindChoice = el('input', { attrs: { type: 'radio', name: 'poll-kind', value: 'choice', id: 'kind-choice' } });
    const kindOpen = el('input', { attrs: { type: 'radio', name: 'poll-kind', value: 'open', id: 'kind-open' } });
    kindChoice.checked = kind === 'choice';
    kindOpen.checked = kind === 'open';
    const segmented = el('div', { class: 'segmented', attrs: { role: 'radiogroup', 'aria-label': 'Kind of question' } }, [
      el('label', { attrs: { for: 'kind-choice' } }, [kindChoice, el('span', { text: 'Multiple choice' })]),
      el('label', { attrs: { for: 'kind-open' } }, [kindOpen, el('span', { text: 'Open text' })]),
    ]);
    const choiceList = el('ol', { class: 'choice-editor' });
    const addChoice = el('button', { class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'add-choice' } }, [icon2('plus', 16), el('span', { text: 'Add a choice' })]);
    const multiple = el('input', { attrs: { type: 'checkbox', id: 'poll-multiple' } });
    multiple.checked = Boolean(start.multiple);
    const showResults = el('input', { attrs: { type: 'checkbox', id: 'poll-show-results' } });
    showResults.checked = Boolean(start.showResults);
    const quiz = el('input', { attrs: { type: 'checkbox', id: 'poll-quiz', role: 'switch', 'aria-describedby': 'poll-quiz-hint' } });
    quiz.checked = Boolean(start.quiz);
    const error = el('p', { class: 'form-error', attrs: { role: 'alert' } });

    const addRow = (text = '', correct = false) => {
      const input = el('input', { class: 'input', attrs: { type: 'text', maxlength: 200, placeholder: 'Choice', 'data-role': 'choice' } });
      input.value = text;
      const tick = el('input', { attrs: { type: 'checkbox', 'data-role': 'correct', title: 'Right answer' } });
      tick.checked = correct;
      const remove = el('button', { class: 'btn btn-ghost btn-icon-sm', attrs: { type: 'button', 'aria-label': 'Remove this choice', title: 'Remove' } }, [icon2('x', 16)]);
      const row = el('li', { class: 'choice-row' }, [
        el('span', { class: 'choice-letter', attrs: { 'aria-hidden': 'true' } }),
        input,
        el('label', { class: 'choice-correct', attrs: { title: 'Right answer' } }, [tick, el('span', { text: 'Right' })]),
        remove,
      ]);
      remove.addEventListener('click', () => {
        row.remove();
        renumber();
      });
      input.addEventListener('keydown', (event) => {
        // Enter in the last choice adds another: typing a question takes seconds.
        if (event.key === 'Enter') {
          event.preventDefault();
          const rows = [...choiceList.children];
          const at = rows.indexOf(row);
          if (at === rows.length - 1 && rows.length < MAX_CHOICES) {
            addRow();
            renumber();
          }
          const next = choiceList.children[at + 1];
          if (next) next.querySelector('input[type=text]').focus();
        }
      });
      choiceList.append(row);
      return input;
    };
    const renumber = () => {
      const rows = [...choiceList.children];
      rows.forEach((row, i) => {
        row.querySelector('.choice-letter').textContent = String.fromCharCode(65 + i);
        row.querySelector('input[type=text]').setAttribute('aria-label', 'Choice ' + String.fromCharCode(65 + i));
        row.querySelector('input[type=checkbox]').setAttribute('aria-label', 'Choice ' + String.fromCharCode(65 + i) + ' is right');
        row.querySelector('button').disabled = rows.length <= MIN_CHOICES;
      });
      addChoice.disabled = rows.length >= MAX_CHOICES;
    };
    (start.choices && start.choices.length ? start.choices : ['', '']).forEach((c, i) => addRow(c, (start.correct || []).includes(i)));
    renumber();
    addChoice.addEventListener('click', () => {
      if (choiceList.children.length >= MAX_CHOICES) return;
      const input = addRow();
      renumber();
      input.focus();
    });
    const choiceSection = el('div', { class: 'choice-section' }, [
      el('div', { class: 'field-label', text: 'Choices — tick the right one(s), if any' }),
      choiceList, addChoice,
      el('label', { class: 'check', attrs: { for: 'poll-multiple' } }, [multiple, el('span', { text: 'Allow several answers' })]),
      el('label', { class: 'switch quiz-switch', attrs: { for: 'poll-quiz' } }, [
        el('span', { class: 'switch-text' }, [
          el('span', { class: 'field-label' }, [icon2('trophy', 16), el('span', { text: ' Quiz question (scores points)' })]),
          el('span', { class: 'field-hint', text: 'Needs a right answer. Right answers score 500 to 1,000 points, more for faster ones; a leaderboard follows.', attrs: { id: 'poll-quiz-hint' } }),
        ]),
        quiz,
      ]),
    ]);
    const syncKind = () => {
      kind = kindOpen.checked ? 'open' : 'choice';
      choiceSection.hidden = kind !== 'choice';
    };
    kindChoice.addEventListener('change', syncKind);
    kindOpen.addEventListener('change', syncKind);
    syncKind();

    const collect = () => {
      const poll = { kind, question: question.value.trim(), showResults: showResults.checked };
      if (!poll.question) return { error: 'Type the question.', focus: question };
      if (kind === 'choice') {
        const rows = [...choiceList.children];
        const choices = [];
        const correct = [];
        for (const row of rows) {
          const text = row.querySelector('input[type=text]').value.trim();
          if (!text) continue;
          if (row.querySelector('input[type=checkbox]').checked) correct.push(choices.length);
          choices.push(text);
        }
        if (choices.length < MIN_CHOICES) return { error: 'Give at least two choices.', focus: rows.find((r) => !r.querySelector('input[type=text]').value.trim())?.querySelector('input') };
        poll.choices = choices;
        poll.correct = correct;
        poll.multiple = multiple.checked;
        if (!poll.multiple && correct.length > 1) poll.multiple = true;
        if (quiz.checked) {
          if (!correct.length) return { error: 'A quiz question needs a right answer: tick “Right” next to it.', focus: choiceList.querySelector('[data-role=correct]') };
          poll.quiz = true;
        }
      }
      return { poll };
    };

    const cancel = el('button', { class: 'btn', text: 'Cancel', attrs: { type: 'button' } });
    const actions = [cancel];
    const primary = mode === 'adhoc' ? 'send' : mode === 'edit' ? 'save' : 'save-send';
    if (mode === 'new') actions.push(el('button', { class: 'btn', text: 'Save', attrs: { type: 'submit', value: 'save', 'data-action': 'save-question' } }));
    actions.push(el('button', {
      class: 'btn btn-primary',
      text: primary === 'send' ? 'Send now' : primary === 'save' ? 'Save' : 'Save and send',
      attrs: { type: 'submit', value: primary, 'data-action': primary === 'send' ? 'send-adhoc' : primary === 'save' ? 'save-question' : 'save-send' },
    }));
    const title = mode === 'adhoc' ? 'Ask the audience' : mode === 'edit' ? 'Edit question' : 'New question';
    const form = el('form', { class: 'dialog-form poll-editor', attrs: { novalidate: true } }, [
      el('h2', { class: 'dialog-title', text: title, attrs: { id: 'poll-editor-title' } }),
      el('label', { class: 'field', attrs: { for: 'poll-question' } }, [el('span', { class: 'field-label', text: 'Question' }), question]),
      segmented,
      choiceSection,
      el('label', { class: 'check', attrs: { for: 'poll-show-results' } }, [showResults, el('span', { text: 'Show results live to the audience' })]),
      error,
      el('div', { class: 'dialog-actions' }, actions),
    ]);
    const dialog = el('dialog', { class: 'dialog poll-editor-dialog', attrs: { 'aria-labelledby': 'poll-editor-title', id: 'poll-editor' } }, [form]);
    document.body.append(dialog);
    dialog.addEventListener('close', () => setTimeout(() => dialog.remove(), 0));
    cancel.addEventListener('click', () => dialog.close());
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const action = event.submitter ? event.submitter.value : primary;
      const { poll, error: problem, focus } = collect();
      if (problem) {
        error.textContent = problem;
        if (focus) focus.focus();
        return;
      }
      error.textContent = '';
      for (const b of form.querySelectorAll('button')) b.disabled = true;
      let saved = false;
      try {
        if (action === 'save' || action === 'save-send') {
          if (!this.deckId) throw new Error('This session has no deck to keep questions in.');
          const base = '/api/v1/decks/' + encodeURIComponent(this.deckId) + '/questions';
          if (mode === 'edit') {
            const saved = await api(base + '/' + encodeURIComponent(item.id), { method: 'PATCH', body: { poll } });
            this.bank = this.bank.map((q) => (q.id === item.id ? saved : q));
          } else {
            const saved = await api(base, { method: 'POST', body: { poll } });
            this.bank.push(saved);
          }
          this.renderBank();
          saved = true;
        }
        if (action === 'send' || action === 'save-send') {
          if (!(await this.openPoll(poll, { quiet: true }))) {
            for (const b of form.querySelectorAll('button')) b.disabled = false;
            renumber();
            return;
          }
        }
        dialog.close();
      } catch (failure) {
        const refused = failure && failure.code === 'invalid_poll';
        const text = refused ? 'The server refused this question: ' + (failure.message || 'it breaks the rules for polls.') : (failure && failure.message) || 'Not saved.';
        if (saved) {
          // Kept in the bank, but not sent: say so where the presenter looks next.
          dialog.close();
          toast('Saved to the bank, but not sent. ' + text, { kind: 'error' });
          return;
        }
        error.textContent = text;
        error.dataset.code = (failure && failure.code) || '';
        for (const b of form.querySelectorAll('button')) b.disabled = false;
        renumber();
      }
    });
    dialog.showModal();
    question.focus();
  }

  /** The newest poll with its live results and the buttons that move it on. */
  renderActive() {
    const entry = this.state.latest;
    const box = this.activeBox;
    if (!entry) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    const { poll, status } = entry;
    const results = this.state.results.get(poll.id) || { counts: [], answered: 0, connected: this.live.viewers || 0, answers: [] };
    box.hidden = false;
    box.dataset.pollId = String(poll.id);
    box.dataset.pollStatus = status;
    const chip = el('span', {
      class: 'poll-chip ' + (status === 'open' ? 'is-open' : status === 'revealed' ? 'is-revealed' : 'is-closed'),
      text: status === 'open' ? 'Open' : status === 'revealed' ? (entry.resultsRevealed ? 'Answer and results shown' : 'Answer shown') : 'Closed',
    });
    const rate = el('div', {
      class: 'response-rate', data: { role: 'response-rate', answered: results.answered, connected: results.connected },
    }, [
      el('strong', { text: results.answered + ' / ' + results.connected }),
      el('span', { text: ' answered' }),
      el('span', { class: 'rate-pct', text: results.connected ? ' · ' + percent(results.answered, results.connected) + '%' : '' }),
    ]);
    const rateBar = el('div', { class: 'rate-track', attrs: { 'aria-hidden': 'true' } }, [el('span', { class: 'rate-fill' })]);
    rateBar.firstChild.style.width = Math.min(100, percent(results.answered, results.connected)) + '%';
    const parts = [
      el('div', { class: 'active-head' }, [el('span', { class: 'sheet-kicker' }, [icon2('chart', 16), el('span', { text: 'Poll ' + poll.id })]), chip]),
      el('h3', { class: 'active-question', text: poll.question }),
      el('p', { class: 'active-meta', text: kindLabel(poll) + (poll.showResults ? ' · results shown live' : ' · results hidden from the audience') }),
      rate, rateBar,
    ];
    if (poll.kind === 'choice') {
      parts.push(barChart({ choices: poll.choices, counts: results.counts, answered: results.answered, correct: poll.correct || [] }));
    } else {
      const answers = results.answers || [];
      const shared = new Set(entry.shared.map((s) => s.answerId));
      parts.push(wordCloud(answers.map((a) => a.text)));
      const list = el('ul', { class: 'answer-list', attrs: { 'aria-label': 'Answers, newest first' } });
      if (!answers.length) list.append(el('li', { class: 'pane-empty', text: 'Answers appear here as they arrive.' }));
      for (const answer of answers) {
        // The server names it answerId (as in shared answers); protocol.md says id: take either.
        const answerId = answer.answerId !== undefined ? answer.answerId : answer.id;
        const isShared = shared.has(answerId);
        const share = el('button', {
          class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'share-answer', disabled: isShared, title: 'Show this answer to everyone (no name)' },
          on: { click: () => this.send({ type: 'shareAnswer', pollId: poll.id, answerId }).catch(() => {}) },
        }, [icon2(isShared ? 'check' : 'share', 14), el('span', { text: isShared ? 'Shared' : 'Share' })]);
        list.append(el('li', { class: 'answer-item' + (isShared ? ' is-shared' : ''), data: { answerId } }, [el('span', { class: 'answer-text', text: answer.text }), share]));
      }
      parts.push(list);
    }
    const buttons = [];
    if (status === 'open') {
      buttons.push(el('button', { class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'close-poll' }, on: { click: () => this.send({ type: 'closePoll', pollId: poll.id }).catch(() => {}) } }, [icon2('x', 16), el('span', { text: 'Close' })]));
    }
    const hasAnswer = (poll.correct || []).length > 0;
    if (poll.kind === 'choice' && hasAnswer && status !== 'revealed') {
      buttons.push(el('button', { class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'reveal' }, on: { click: () => this.send({ type: 'revealPoll', pollId: poll.id, results: false }).catch(() => {}) } }, [icon2('check', 16), el('span', { text: 'Reveal answer' })]));
    }
    if (poll.kind === 'choice' && !(status === 'revealed' && entry.resultsRevealed)) {
      buttons.push(el('button', { class: 'btn btn-sm btn-primary', attrs: { type: 'button', 'data-action': 'reveal-results' }, on: { click: () => this.send({ type: 'revealPoll', pollId: poll.id, results: true }).catch(() => {}) } }, [icon2('chart', 16), el('span', { text: status === 'revealed' || !hasAnswer ? 'Show results to everyone' : 'Reveal answer + results' })]));
    }
    if (poll.kind === 'open' && status !== 'revealed') {
      buttons.push(el('button', { class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'reveal-results', title: 'Close and show the word counts to everyone' }, on: { click: () => this.send({ type: 'revealPoll', pollId: poll.id, results: true }).catch(() => {}) } }, [icon2('chart', 16), el('span', { text: 'End poll' })]));
    }
    if (buttons.length) parts.push(el('div', { class: 'active-actions' }, buttons));
    if (poll.quiz && status !== 'open') parts.push(this.quizSection());
    box.replaceChildren(...parts);
  }

  // ---- quiz leaderboard ----

  quizSection() {
    const board = this.state.leaderboard;
    const show = el('button', {
      class: 'btn btn-sm btn-primary', attrs: { type: 'button', 'data-action': 'show-leaderboard', title: 'Show the leaderboard large, over the slide' },
      on: { click: () => this.showLeaderboard(true) },
    }, [icon2('trophy', 16), el('span', { text: 'Show leaderboard' })]);
    return el('div', { class: 'quiz-board' }, [
      el('div', { class: 'pane-head' }, [
        el('h3', { class: 'quiz-board-title' }, [icon2('trophy', 16), el('span', { text: 'Leaderboard' })]),
        el('span', { class: 'pane-count', text: board ? board.players + (board.players === 1 ? ' player' : ' players') : '' }),
      ]),
      board ? leaderboardList(board) : el('p', { class: 'muted', text: 'Scoring…' }),
      show,
    ]);
  }

  /** The leaderboard over the stage, large enough for the back of the room. */
  showLeaderboard(visible) {
    if (!this.boardScreen) {
      const wrap = document.getElementById('stage-wrap');
      const close = el('button', {
        class: 'btn board-close', attrs: { type: 'button', 'data-action': 'close-leaderboard', 'aria-label': 'Close the leaderboard' },
        on: { click: () => this.showLeaderboard(false) },
      }, [icon2('x', 20), el('span', { text: 'Close' })]);
      this.boardBody = el('div', { class: 'board-body' });
      this.boardScreen = el('section', { class: 'board-screen', attrs: { id: 'leaderboard-screen', 'aria-labelledby': 'board-title', role: 'dialog' } }, [
        el('div', { class: 'board-card' }, [
          el('div', { class: 'board-head' }, [
            el('h2', { attrs: { id: 'board-title' } }, [icon2('trophy', 32), el('span', { text: 'Leaderboard' })]),
            close,
          ]),
          this.boardBody,
        ]),
      ]);
      this.boardScreen.hidden = true;
      (wrap || document.body).append(this.boardScreen);
      document.addEventListener('keydown', (event) => {
        if (event.key === 'Escape' && !this.boardScreen.hidden) {
          event.stopPropagation();
          this.showLeaderboard(false);
        }
      }, true);
    }
    this.boardScreen.hidden = !visible;
    this.renderLeaderboardScreen();
    if (visible) this.boardScreen.querySelector('[data-action=close-leaderboard]').focus();
  }

  renderLeaderboardScreen() {
    if (!this.boardScreen || this.boardScreen.hidden) return;
    const board = this.state.leaderboard;
    this.boardBody.replaceChildren(
      leaderboardList(board),
      el('p', { class: 'board-players', text: board ? board.players + (board.players === 1 ? ' player' : ' players') : '' }),
    );
  }

  // ---- questions from the audience ----

  buildQuestionsPane() {
    const pane = this.panes.questions;
    const sort = el('div', { class: 'segmented segmented-sm', attrs: { role: 'radiogroup', 'aria-label': 'Sort questions' } });
    for (const [value, label] of [['time', 'Newest'], ['slide', 'By slide'], ['viewer', 'By viewer']]) {
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
    this.questionList = el('ul', { class: 'question-list', attrs: { 'aria-label': 'Questions from the audience' } });
    // Public questions: viewers see (approved) questions and upvote them.
    this.publicSwitch = el('input', { attrs: { type: 'checkbox', id: 'questions-public', role: 'switch' } });
    this.approvalSwitch = el('input', { attrs: { type: 'checkbox', id: 'questions-approval', role: 'switch' } });
    const sendMode = () => {
      const questions = { public: this.publicSwitch.checked, approval: this.approvalSwitch.checked };
      this.renderQuestionMode(questions);
      this.send({ type: 'setQuestionMode', questions }, 'The setting was not changed.').catch(() => this.renderQuestionMode());
    };
    this.publicSwitch.addEventListener('change', sendMode);
    this.approvalSwitch.addEventListener('change', sendMode);
    this.approvalRow = el('label', { class: 'switch switch-sm', attrs: { for: 'questions-approval' } }, [
      el('span', { class: 'switch-text' }, [
        el('span', { class: 'field-label', text: 'Approve before showing' }),
        el('span', { class: 'field-hint', text: 'A question appears to everyone once you approve it.' }),
      ]),
      this.approvalSwitch,
    ]);
    const settings = el('div', { class: 'question-settings', attrs: { 'data-role': 'question-mode' } }, [
      el('label', { class: 'switch switch-sm', attrs: { for: 'questions-public' } }, [
        el('span', { class: 'switch-text' }, [
          el('span', { class: 'field-label', text: 'Questions are public' }),
          el('span', { class: 'field-hint', text: 'Viewers see each other’s questions and upvote them.' }),
        ]),
        this.publicSwitch,
      ]),
      this.approvalRow,
    ]);
    pane.append(
      el('div', { class: 'pane-head' }, [el('h2', { text: 'Questions' }), el('span', { class: 'pane-count', attrs: { 'data-role': 'question-count' } })]),
      settings,
      sort,
      el('label', { class: 'check check-sm', attrs: { for: 'hide-answered' } }, [this.hideAnswered, el('span', { text: 'Hide answered' })]),
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
    this.tabs.questions.setAttribute('aria-label', 'Questions' + (unread ? ', ' + unread + ' unread' : ''));
    const chip = document.getElementById('code-chip');
    if (chip) chip.dataset.unread = String(unread);
  }

  renderQuestions() {
    if (!this.questionList) return;
    const all = this.state.questions.slice();
    const open = all.filter((q) => !q.answered).length;
    const count = this.panes.questions.querySelector('[data-role=question-count]');
    if (count) count.textContent = all.length ? open + ' open · ' + all.length + ' in all' : '';
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
        el('strong', { text: all.length ? 'Every question is answered' : 'No questions yet' }),
        el('span', { text: 'Viewers ask with the “Ask” button on their screen.' }),
      ]));
      return;
    }
    let group = null;
    for (const q of list) {
      if (this.sortBy !== 'time') {
        const key = this.sortBy === 'slide' ? (q.page ? 'Slide ' + q.page : 'Not about a slide') : q.anonymous ? 'Anonymous' : q.name || 'Guest';
        if (key !== group) {
          group = key;
          this.questionList.append(el('li', { class: 'question-group', text: key }));
        }
      }
      const name = q.anonymous ? 'Anonymous' : q.name || 'Guest';
      const slide = q.page ? el('button', {
        class: 'slide-badge', text: 'p. ' + q.page,
        attrs: { type: 'button', title: 'Go to slide ' + q.page, 'aria-label': 'Go to slide ' + q.page, 'data-action': 'goto-question-page' },
        on: { click: () => this.gotoPage(q.page) },
      }) : null;
      const mark = el('button', {
        class: 'btn btn-sm mark-answered', attrs: { type: 'button', 'aria-pressed': String(q.answered), 'data-action': 'mark-answered' },
        on: { click: () => this.send({ type: 'markQuestion', questionId: q.id, answered: !q.answered }).catch(() => {}) },
      }, [icon2('check', 14), el('span', { text: q.answered ? 'Answered' : 'Mark answered' })]);
      const votes = mode.public ? el('span', {
        class: 'vote-count', text: '▲ ' + (q.votes || 0),
        attrs: { 'data-role': 'votes', title: (q.votes || 0) + (q.votes === 1 ? ' upvote' : ' upvotes'), 'aria-label': (q.votes || 0) + (q.votes === 1 ? ' upvote' : ' upvotes') },
      }) : null;
      const approve = approving ? el('button', {
        class: 'btn btn-sm approve-btn', attrs: { type: 'button', 'aria-pressed': String(Boolean(q.approved)), 'data-action': 'approve-question', title: q.approved ? 'Take it off the public list' : 'Show it to everyone' },
        on: { click: () => this.send({ type: 'approveQuestion', questionId: q.id, approved: !q.approved }).catch(() => {}) },
      }, [icon2(q.approved ? 'x' : 'check', 14), el('span', { text: q.approved ? 'Unapprove' : 'Approve' })]) : null;
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
          mark,
        ]),
      ]));
    }
  }

  // ---- viewers ----

  buildViewersPane() {
    this.viewerList = el('ul', { class: 'viewer-list', attrs: { 'aria-label': 'Viewers' } });
    this.panes.viewers.append(
      el('div', { class: 'pane-head' }, [el('h2', { text: 'Viewers' }), el('span', { class: 'pane-count', attrs: { 'data-role': 'viewer-summary' } })]),
      this.viewerList,
    );
    this.renderViewers();
  }

  renderViewers() {
    const viewers = this.state.viewers.slice().sort((a, b) => Number(b.connected) - Number(a.connected) || a.name.localeCompare(b.name));
    const connected = viewers.filter((v) => v.connected).length;
    const summary = this.panes.viewers.querySelector('[data-role=viewer-summary]');
    summary.textContent = viewers.length ? connected + ' connected · ' + viewers.length + ' joined' : '';
    this.viewerList.replaceChildren();
    if (!viewers.length) {
      this.viewerList.append(el('li', { class: 'pane-empty' }, [el('strong', { text: 'Nobody has joined yet' }), el('span', { text: 'Show the join code: viewers appear here.' })]));
      return;
    }
    for (const v of viewers) {
      this.viewerList.append(el('li', { class: 'viewer-item', data: { viewerId: v.id, connected: String(v.connected) } }, [
        el('span', { class: 'presence-dot' + (v.connected ? ' is-on' : ''), attrs: { 'aria-label': v.connected ? 'connected' : 'not connected', role: 'img' } }),
        el('span', { class: 'viewer-name', text: v.name }),
        v.questions ? el('span', { class: 'viewer-questions', text: v.questions === 1 ? '1 question' : v.questions + ' questions' }) : null,
      ]));
    }
  }
}

export function mountPresenterInteraction(options) {
  return new PresenterInteraction(options);
}
