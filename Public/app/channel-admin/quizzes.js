// The admin's quizzes: a table (reorder, publish, delete = archive, the archive with restore and
// delete for ever) and an editor: name, description, questions with their answers and which are
// right (one or more), questions reordered by dragging their handle or with the arrow keys.
import { api } from '../core/api.js';
import { errorText, t } from '../core/i18n.js';
import { el } from '../core/ui.js';
import { handle, makeReorderable } from './reorder.js';
import { archiveActions } from './archive.js';
import { listPart, rowActions, itemRow, closePane, submitForm, formActions, openPane } from './rows.js';

const state = { status: 'all', quizzes: [] };
const parts = {};

// The quizzes page (rows.js): its section's context (`page.ctx`) and saver (`page.save`) once mounted.
const page = listPart({
  parts, state, load: () => load(),
  cls: 'admin-quizzes', title: t('channeladmin.quizzes'),
  addLabel: t('channeladmin.quizzes.add'), addClass: 'admin-add-quiz', onAdd: () => edit(null),
  tableClass: 'admin-rows', onReorder: (ids) => page.save('/api/v1/channel/quizzes/order', 'POST', { ids }, t('channeladmin.order-saved')),
  formClass: 'admin-quiz-form', formLabel: t('channeladmin.quizzes.quiz'),
});
export const { mount, show } = page;

async function load() {
  try {
    state.quizzes = await api('/api/v1/channel/quizzes?limit=100&status=' + state.status);
  } catch (error) {
    parts.table.replaceChildren(el('li', { class: 'admin-empty', text: errorText(error) }));
    return;
  }
  const archived = state.status === 'archived';
  if (state.quizzes.length === 0) {
    parts.table.replaceChildren(el('li', { class: 'admin-empty', text: archived ? t('channeladmin.archive-empty') : t('channeladmin.quizzes.none') }));
    return;
  }
  parts.table.replaceChildren(
    ...state.quizzes.map((quiz) => {
      const published = Boolean(quiz.publishedAt);
      const path = '/api/v1/channel/quizzes/' + encodeURIComponent(quiz.id);
      const archive = archiveActions(path, {
        ctx: page.ctx, done: load, archived: t('channeladmin.archived-named', { name: quiz.name }), confirm: t('channeladmin.quizzes.delete-forever-message', { name: quiz.name }),
      });
      const actions = rowActions({
        archived, archive, published, edit: () => edit(quiz),
        publish: async (on) => { await page.save(path, 'PATCH', { published: on }, on ? t('channeladmin.published-toast') : t('channeladmin.unpublished-toast')); load(); },
      });
      return itemRow({ id: quiz.id, name: quiz.name, meta: t('channeladmin.quizzes.questions', { count: quiz.questionCount }), archived, published, actions });
    }),
  );
}

let questionCount = 0;

/** One question's editor: its text, its answers (each with a "right" box), add/remove. */
function questionEditor(question, list) {
  const number = ++questionCount;
  const text = el('input', { class: 'input quiz-question-text', attrs: { value: question ? question.text : '', maxlength: 500, 'aria-label': t('channeladmin.quizzes.question'), placeholder: t('channeladmin.quizzes.question') } });
  const answers = el('ol', { class: 'quiz-answer-rows' });
  const addAnswer = (answer) => {
    const row = el('li', { class: 'quiz-answer-row', data: { answerId: answer && answer.id ? answer.id : '' } }, [
      el('input', { class: 'input quiz-answer-text', attrs: { value: answer ? answer.text : '', maxlength: 300, 'aria-label': t('channeladmin.quizzes.answer'), placeholder: t('channeladmin.quizzes.answer') } }),
      el('label', { class: 'quiz-answer-right' }, [
        el('input', { class: 'quiz-answer-correct', attrs: { type: 'checkbox', checked: Boolean(answer && answer.correct) } }),
        el('span', { text: t('channeladmin.quizzes.right') }),
      ]),
      el('button', { class: 'btn btn-ghost', text: t('channeladmin.remove'), attrs: { type: 'button', 'aria-label': t('channeladmin.quizzes.remove-answer') }, on: { click: () => row.remove() } }),
    ]);
    answers.append(row);
  };
  for (const answer of question ? question.answers : [null, null]) addAnswer(answer);
  const item = el('li', { class: 'quiz-question-row', data: { id: question && question.id ? question.id : 'new-' + number } }, [
    handle(t('channeladmin.quizzes.the-question')),
    el('div', { class: 'quiz-question-body' }, [
      text,
      answers,
      el('div', { class: 'quiz-question-actions' }, [
        el('button', { class: 'btn', text: t('channeladmin.quizzes.add-answer'), attrs: { type: 'button' }, on: { click: () => addAnswer(null) } }),
        el('button', { class: 'btn btn-ghost', text: t('channeladmin.quizzes.remove-question'), attrs: { type: 'button' }, on: { click: () => item.remove() } }),
      ]),
    ]),
  ]);
  list.append(item);
  return text;
}

/** What the editor holds, as the API takes it. */
function collect(list) {
  return [...list.querySelectorAll('.quiz-question-row')].map((row) => ({
    id: row.dataset.id.startsWith('new-') ? undefined : row.dataset.id,
    text: row.querySelector('.quiz-question-text').value,
    answers: [...row.querySelectorAll('.quiz-answer-row')].map((answer) => ({
      id: answer.dataset.answerId || undefined,
      text: answer.querySelector('.quiz-answer-text').value,
      correct: answer.querySelector('.quiz-answer-correct').checked,
    })),
  }));
}

async function edit(summary) {
  let quiz = null;
  if (summary) {
    try {
      quiz = await api('/api/v1/channel/quizzes/' + encodeURIComponent(summary.id) + '?status=all');
    } catch (error) {
      page.ctx.toast(errorText(error), { kind: 'error' });
      return;
    }
  }
  const name = el('input', { class: 'input', attrs: { name: 'name', value: quiz ? quiz.quiz.name : '', maxlength: 200, required: true } });
  const description = el('textarea', { class: 'input', text: quiz ? quiz.quiz.description : '', attrs: { name: 'description', rows: 2, maxlength: 2000 } });
  const published = el('input', { attrs: { type: 'checkbox', checked: quiz ? Boolean(quiz.quiz.publishedAt) : false } });
  const questions = el('ol', { class: 'quiz-question-rows', attrs: { 'aria-label': t('channeladmin.quizzes.questions-label') } });
  makeReorderable(questions, () => {});
  for (const question of quiz ? quiz.questions : []) questionEditor(question, questions);
  if (!quiz) questionEditor(null, questions);
  const error = el('p', { class: 'form-error', attrs: { role: 'alert' } });
  const form = el('form', { class: 'admin-form', attrs: { novalidate: true } }, [
    el('h2', { text: quiz ? t('channeladmin.edit-named', { name: quiz.quiz.name }) : t('channeladmin.quizzes.new') }),
    el('label', { class: 'field' }, [el('span', { class: 'field-label', text: t('channeladmin.name') }), name]),
    el('label', { class: 'field' }, [el('span', { class: 'field-label', text: t('channeladmin.description') }), description]),
    el('label', { class: 'admin-check' }, [published, el('span', { text: t('channeladmin.published') })]),
    el('h3', { text: t('channeladmin.quizzes.questions-label') }),
    el('p', { class: 'field-hint', text: t('channeladmin.quizzes.hint') }),
    questions,
    el('button', { class: 'btn admin-add-question', text: t('channeladmin.quizzes.add-question'), attrs: { type: 'button' }, on: { click: () => questionEditor(null, questions).focus() } }),
    error,
    formActions(closeForm),
  ]);
  openPane(parts.form, form);
  name.focus();
  submitForm(form, {
    error, ctx: page.ctx, pane: parts.form, load, saved: quiz ? t('channeladmin.saved') : t('channeladmin.quizzes.added'),
    async send() {
      const body = { name: name.value, description: description.value, published: published.checked, questions: collect(questions) };
      if (quiz) await api('/api/v1/channel/quizzes/' + encodeURIComponent(quiz.quiz.id), { method: 'PATCH', body });
      else await api('/api/v1/channel/quizzes', { method: 'POST', body });
    },
  });
}

function closeForm() {
  closePane(parts.form);
}
