// The deck's question bank in the presenter's panel (and in rehearsal): prepared polls and
// quizzes kept with the deck in the library (REST: docs/protocol.md, "Question bank"), and the
// poll editor dialog — new (save / save and send), edit (save), ad hoc (send without saving).
//
// State for tests: .bank-item[data-question-id] with [data-action=send-poll|edit-question|
// delete-question]; the editor is dialog#poll-editor.

import { t, errorText, formatNumber } from '../core/i18n.js';
import { api } from '../core/api.js';
import { el, toast, confirmDialog, icon, modalDialog } from '../core/ui.js';

const MIN_CHOICES = 2;
const MAX_CHOICES = 8;

export function kindLabel(poll) {
  if (poll.kind === 'open') return t('bank.open-text');
  const kind = t('bank.choices', { kind: poll.multiple ? t('bank.several') : t('bank.multiple-choice'), count: poll.choices.length });
  return poll.quiz ? t('bank.quiz-kind', { kind }) : kind;
}

export class QuestionBank {
  /**
   * @param {object} o
   * @param {string|null} o.deckId  the deck whose bank this is (null: nothing can be saved)
   * @param {HTMLElement} o.container  where the bank's heading, buttons and list go
   * @param {((poll: object, options?: {quiet?: boolean}) => Promise<boolean>)|null} [o.openPoll]
   *   sends a poll to the audience; without it (rehearsal) the bank only keeps questions
   */
  constructor({ deckId, container, openPoll = null }) {
    this.deckId = deckId || null;
    this.openPoll = openPoll;
    this.bank = [];
    this.bankLoaded = false;
    const newButton = el('button', { class: 'btn btn-primary btn-sm', attrs: { type: 'button', 'data-action': 'new-question' }, on: { click: () => this.openEditor({ mode: 'new' }) } },
      [icon('plus', 16), el('span', { text: t('bank.new-question') })]);
    const adhocButton = openPoll ? el('button', { class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'ask-adhoc' }, on: { click: () => this.openEditor({ mode: 'adhoc' }) } },
      [icon('send', 16), el('span', { text: t('bank.ask-without-saving') })]) : null;
    this.bankList = el('ul', { class: 'bank-list', attrs: { 'aria-label': t('bank.title') } });
    container.append(
      el('div', { class: 'pane-head' }, [el('h2', { text: t('bank.title') })]),
      el('div', { class: 'pane-actions' }, [newButton, adhocButton]),
      this.bankList,
    );
    this.renderBank();
    this.loadBank();
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
      toast(t('bank.load-failed', { reason: errorText(error) }), { kind: 'error' });
      this.bank = [];
    }
    this.bankLoaded = true;
    this.renderBank();
  }

  renderBank() {
    const list = this.bankList;
    list.replaceChildren();
    if (!this.bankLoaded) {
      list.append(el('li', { class: 'pane-empty', text: t('bank.loading') }));
      return;
    }
    if (!this.bank.length) {
      list.append(el('li', { class: 'pane-empty' }, [
        el('strong', { text: t('bank.empty') }),
        el('span', { text: this.deckId ? t('bank.empty-hint') : t('bank.empty-hint-adhoc') }),
      ]));
      return;
    }
    this.bank.forEach((item, index) => {
      const poll = item.poll;
      const send = this.openPoll ? el('button', { class: 'btn btn-primary btn-sm', attrs: { type: 'button', 'data-action': 'send-poll', title: t('bank.ask-now') }, on: { click: () => this.openPoll(poll) } },
        [icon('send', 16), el('span', { text: t('bank.send') })]) : null;
      const edit = el('button', { class: 'btn btn-sm btn-icon-sm', attrs: { type: 'button', 'aria-label': t('bank.edit'), title: t('bank.edit'), 'data-action': 'edit-question' }, on: { click: () => this.openEditor({ mode: 'edit', item }) } }, [icon('edit', 16)]);
      const remove = el('button', { class: 'btn btn-sm btn-icon-sm', attrs: { type: 'button', 'aria-label': t('bank.delete'), title: t('bank.delete'), 'data-action': 'delete-question' }, on: { click: () => this.deleteQuestion(item) } }, [icon('trash', 16)]);
      list.append(el('li', { class: 'bank-item', data: { questionId: item.id } }, [
        el('div', { class: 'bank-text' }, [
          el('span', { class: 'bank-number', text: formatNumber(index + 1) }),
          el('div', {}, [el('p', { class: 'bank-question', text: poll.question }), el('p', { class: 'bank-meta', text: poll.correct && poll.correct.length ? t('bank.answer-set', { meta: kindLabel(poll) }) : kindLabel(poll) })]),
        ]),
        el('div', { class: 'bank-actions' }, [send, edit, remove]),
      ]));
    });
  }

  async deleteQuestion(item) {
    const ok = await confirmDialog({ title: t('bank.delete-title'), message: item.poll.question, confirmLabel: t('bank.delete'), danger: true });
    if (!ok) return;
    try {
      await api('/api/v1/decks/' + encodeURIComponent(this.deckId) + '/questions/' + encodeURIComponent(item.id), { method: 'DELETE' });
      this.bank = this.bank.filter((q) => q.id !== item.id);
      this.renderBank();
    } catch (error) {
      toast(errorText(error), { kind: 'error' });
    }
  }

  /** Sends a poll. With `quiet`, a refusal is thrown (the editor shows it) instead of toasted. */

  /** The poll editor, in a dialog: new (save / save and send), edit (save), ad hoc (send). */
  openEditor({ mode, item = null }) {
    const start = item ? item.poll : { kind: 'choice', question: '', choices: ['', ''], multiple: false, correct: [], showResults: false };
    let kind = start.kind;
    const question = el('textarea', { class: 'input', attrs: { id: 'poll-question', rows: 2, maxlength: 500, required: true, placeholder: t('bank.question-placeholder') } });
    question.value = start.question;
    const kindChoice = el('input', { attrs: { type: 'radio', name: 'poll-kind', value: 'choice', id: 'kind-choice' } });
    const kindOpen = el('input', { attrs: { type: 'radio', name: 'poll-kind', value: 'open', id: 'kind-open' } });
    kindChoice.checked = kind === 'choice';
    kindOpen.checked = kind === 'open';
    const segmented = el('div', { class: 'segmented', attrs: { role: 'radiogroup', 'aria-label': t('bank.kind') } }, [
      el('label', { attrs: { for: 'kind-choice' } }, [kindChoice, el('span', { text: t('bank.multiple-choice') })]),
      el('label', { attrs: { for: 'kind-open' } }, [kindOpen, el('span', { text: t('bank.open-text') })]),
    ]);
    const choiceList = el('ol', { class: 'choice-editor' });
    const addChoice = el('button', { class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'add-choice' } }, [icon('plus', 16), el('span', { text: t('bank.add-choice') })]);
    const multiple = el('input', { attrs: { type: 'checkbox', id: 'poll-multiple' } });
    multiple.checked = Boolean(start.multiple);
    const showResults = el('input', { attrs: { type: 'checkbox', id: 'poll-show-results' } });
    showResults.checked = Boolean(start.showResults);
    const quiz = el('input', { attrs: { type: 'checkbox', id: 'poll-quiz', role: 'switch', 'aria-describedby': 'poll-quiz-hint' } });
    quiz.checked = Boolean(start.quiz);
    const error = el('p', { class: 'form-error', attrs: { role: 'alert' } });

    const addRow = (text = '', correct = false) => {
      const input = el('input', { class: 'input', attrs: { type: 'text', maxlength: 200, placeholder: t('bank.choice'), 'data-role': 'choice' } });
      input.value = text;
      const tick = el('input', { attrs: { type: 'checkbox', 'data-role': 'correct', title: t('bank.right-answer') } });
      tick.checked = correct;
      const remove = el('button', { class: 'btn btn-ghost btn-icon-sm', attrs: { type: 'button', 'aria-label': t('bank.remove-choice'), title: t('bank.remove') } }, [icon('x', 16)]);
      const row = el('li', { class: 'choice-row' }, [
        el('span', { class: 'choice-letter', attrs: { 'aria-hidden': 'true' } }),
        input,
        el('label', { class: 'choice-correct', attrs: { title: t('bank.right-answer') } }, [tick, el('span', { text: t('bank.right') })]),
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
        row.querySelector('input[type=text]').setAttribute('aria-label', t('bank.choice-label', { letter: String.fromCharCode(65 + i) }));
        row.querySelector('input[type=checkbox]').setAttribute('aria-label', t('bank.choice-right', { letter: String.fromCharCode(65 + i) }));
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
      el('div', { class: 'field-label', text: t('bank.choices-label') }),
      choiceList, addChoice,
      el('label', { class: 'check', attrs: { for: 'poll-multiple' } }, [multiple, el('span', { text: t('bank.allow-several') })]),
      el('label', { class: 'switch quiz-switch', attrs: { for: 'poll-quiz' } }, [
        el('span', { class: 'switch-text' }, [
          el('span', { class: 'field-label' }, [icon('trophy', 16), el('span', { text: ' ' + t('bank.quiz-question') })]),
          el('span', { class: 'field-hint', text: t('bank.quiz-hint'), attrs: { id: 'poll-quiz-hint' } }),
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
      if (!poll.question) return { error: t('bank.type-question'), focus: question };
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
        if (choices.length < MIN_CHOICES) return { error: t('bank.two-choices'), focus: rows.find((r) => !r.querySelector('input[type=text]').value.trim())?.querySelector('input') };
        poll.choices = choices;
        poll.correct = correct;
        poll.multiple = multiple.checked;
        if (!poll.multiple && correct.length > 1) poll.multiple = true;
        if (quiz.checked) {
          if (!correct.length) return { error: t('bank.quiz-needs-right'), focus: choiceList.querySelector('[data-role=correct]') };
          poll.quiz = true;
        }
      }
      return { poll };
    };

    const cancel = el('button', { class: 'btn', text: t('common.cancel'), attrs: { type: 'button' } });
    const actions = [cancel];
    // Without a live session (rehearsal), questions are only saved.
    const primary = mode === 'adhoc' ? 'send' : mode === 'edit' || !this.openPoll ? 'save' : 'save-send';
    if (mode === 'new' && this.openPoll) actions.push(el('button', { class: 'btn', text: t('bank.save'), attrs: { type: 'submit', value: 'save', 'data-action': 'save-question' } }));
    actions.push(el('button', {
      class: 'btn btn-primary',
      text: primary === 'send' ? t('bank.send-now') : primary === 'save' ? t('bank.save') : t('bank.save-and-send'),
      attrs: { type: 'submit', value: primary, 'data-action': primary === 'send' ? 'send-adhoc' : primary === 'save' ? 'save-question' : 'save-send' },
    }));
    const title = mode === 'adhoc' ? t('bank.ask-audience') : mode === 'edit' ? t('bank.edit-question') : t('bank.new-question');
    const { dialog, content: form } = modalDialog({
      title, id: 'poll-editor', cls: 'poll-editor-dialog', form: true, contentCls: 'poll-editor', open: false, actions, body: [
        el('label', { class: 'field', attrs: { for: 'poll-question' } }, [el('span', { class: 'field-label', text: t('bank.question') }), question]),
        segmented,
        choiceSection,
        el('label', { class: 'check', attrs: { for: 'poll-show-results' } }, [showResults, el('span', { text: t('bank.show-results-live') })]),
        error,
      ],
    });
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
          if (!this.deckId) throw new Error(t('bank.no-deck'));
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
        const text = refused ? t('bank.refused', { reason: failure.message || t('errors.invalid_poll') }) : failure && (failure.code || failure.message) ? errorText(failure) : t('bank.not-saved');
        if (saved) {
          // Kept in the bank, but not sent: say so where the presenter looks next.
          dialog.close();
          toast(t('bank.saved-not-sent', { reason: text }), { kind: 'error' });
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

}
