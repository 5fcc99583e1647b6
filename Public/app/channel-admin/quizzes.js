// The admin's quizzes: a table (reorder, publish, delete = archive, the archive with restore and
// delete for ever) and an editor: name, description, questions with their answers and which are
// right (one or more), questions reordered by dragging their handle or with the arrow keys.
import { api } from '../api.js';
import { confirmDialog, el } from '../ui.js';
import { handle, makeReorderable } from './reorder.js';
import { useStylesheet } from '../channel/stylesheet.js';

let ctx = null;
let root = null;
const state = { status: 'all', quizzes: [] };
const parts = {};

export async function mount(section, context) {
  await useStylesheet('/app/channel-admin/places-quizzes.css');
  ctx = context;
  root = section;
  root.classList.add('admin-quizzes');
  parts.filter = el('div', { class: 'admin-filter', attrs: { role: 'group', 'aria-label': 'Show' } }, [
    filterButton('all', 'Quizzes'),
    filterButton('archived', 'Archived'),
  ]);
  parts.add = el('button', { class: 'btn btn-primary admin-add-quiz', text: 'Add quiz', attrs: { type: 'button' }, on: { click: () => edit(null) } });
  parts.table = el('ul', { class: 'admin-rows', attrs: { 'aria-label': 'Quizzes' } });
  makeReorderable(parts.table, (ids) => save('/api/v1/channel/quizzes/order', 'POST', { ids }, 'Order saved.'));
  parts.form = el('section', { class: 'admin-quiz-form', attrs: { hidden: true, 'aria-label': 'Quiz' } });
  root.append(el('div', { class: 'admin-toolbar' }, [el('h1', { text: 'Quizzes' }), parts.filter, parts.add]), parts.form, parts.table);
}

export function show() {
  load();
}

function filterButton(status, label) {
  return el('button', {
    class: 'btn admin-filter-button',
    text: label,
    data: { status },
    attrs: { type: 'button', 'aria-pressed': String(state.status === status) },
    on: {
      click: () => {
        state.status = status;
        for (const b of parts.filter.children) b.setAttribute('aria-pressed', String(b.dataset.status === status));
        parts.add.hidden = status === 'archived';
        load();
      },
    },
  });
}

async function save(path, method, body, message) {
  try {
    const result = await api(path, { method, body });
    if (message) ctx.toast(message);
    return result ?? true;
  } catch (error) {
    ctx.toast(error.message, { kind: 'error' });
    load();
    return null;
  }
}

async function load() {
  try {
    state.quizzes = await api('/api/v1/channel/quizzes?limit=100&status=' + state.status);
  } catch (error) {
    parts.table.replaceChildren(el('li', { class: 'admin-empty', text: error.message }));
    return;
  }
  const archived = state.status === 'archived';
  if (state.quizzes.length === 0) {
    parts.table.replaceChildren(el('li', { class: 'admin-empty', text: archived ? 'The archive is empty.' : 'No quizzes yet: add the first one.' }));
    return;
  }
  parts.table.replaceChildren(
    ...state.quizzes.map((quiz) => {
      const published = Boolean(quiz.publishedAt);
      const path = '/api/v1/channel/quizzes/' + encodeURIComponent(quiz.id);
      const actions = archived
        ? [
            el('button', { class: 'btn', text: 'Restore', attrs: { type: 'button' }, on: { click: async () => { await save(path + '/restore', 'POST', undefined, 'Restored.'); load(); } } }),
            el('button', {
              class: 'btn btn-danger',
              text: 'Delete for ever',
              attrs: { type: 'button' },
              on: {
                click: async () => {
                  if (!(await confirmDialog({ title: 'Delete for ever?', message: '“' + quiz.name + '” and its scores cannot be restored.', confirmLabel: 'Delete for ever', danger: true }))) return;
                  await save(path + '?permanent=true', 'DELETE', undefined, 'Deleted.');
                  load();
                },
              },
            }),
          ]
        : [
            el('button', { class: 'btn', text: 'Edit', attrs: { type: 'button' }, on: { click: () => edit(quiz) } }),
            el('button', {
              class: 'btn',
              text: published ? 'Unpublish' : 'Publish',
              attrs: { type: 'button' },
              on: { click: async () => { await save(path, 'PATCH', { published: !published }, published ? 'Unpublished.' : 'Published.'); load(); } },
            }),
            el('button', { class: 'btn btn-ghost', text: 'Delete', attrs: { type: 'button' }, on: { click: async () => { await save(path, 'DELETE', undefined, '“' + quiz.name + '” moved to the archive.'); load(); } } }),
          ];
      return el('li', { class: 'admin-row', data: { id: quiz.id } }, [
        archived ? null : handle(quiz.name),
        el('span', { class: 'admin-row-title' }, [
          el('strong', { text: quiz.name }),
          el('span', { class: 'admin-row-meta', text: quiz.questionCount + (quiz.questionCount === 1 ? ' question' : ' questions') }),
        ]),
        el('span', { class: 'badge ' + (published ? 'badge-live' : 'badge-draft'), text: published ? 'Published' : 'Draft' }),
        el('span', { class: 'admin-row-actions' }, actions),
      ]);
    }),
  );
}

let questionCount = 0;

/** One question's editor: its text, its answers (each with a "right" box), add/remove. */
function questionEditor(question, list) {
  const number = ++questionCount;
  const text = el('input', { class: 'input quiz-question-text', attrs: { value: question ? question.text : '', maxlength: 500, 'aria-label': 'Question', placeholder: 'Question' } });
  const answers = el('ol', { class: 'quiz-answer-rows' });
  const addAnswer = (answer) => {
    const row = el('li', { class: 'quiz-answer-row', data: { answerId: answer && answer.id ? answer.id : '' } }, [
      el('input', { class: 'input quiz-answer-text', attrs: { value: answer ? answer.text : '', maxlength: 300, 'aria-label': 'Answer', placeholder: 'Answer' } }),
      el('label', { class: 'quiz-answer-right' }, [
        el('input', { class: 'quiz-answer-correct', attrs: { type: 'checkbox', checked: Boolean(answer && answer.correct) } }),
        el('span', { text: 'Right' }),
      ]),
      el('button', { class: 'btn btn-ghost', text: 'Remove', attrs: { type: 'button', 'aria-label': 'Remove answer' }, on: { click: () => row.remove() } }),
    ]);
    answers.append(row);
  };
  for (const answer of question ? question.answers : [null, null]) addAnswer(answer);
  const item = el('li', { class: 'quiz-question-row', data: { id: question && question.id ? question.id : 'new-' + number } }, [
    handle('question'),
    el('div', { class: 'quiz-question-body' }, [
      text,
      answers,
      el('div', { class: 'quiz-question-actions' }, [
        el('button', { class: 'btn', text: 'Add answer', attrs: { type: 'button' }, on: { click: () => addAnswer(null) } }),
        el('button', { class: 'btn btn-ghost', text: 'Remove question', attrs: { type: 'button' }, on: { click: () => item.remove() } }),
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
      ctx.toast(error.message, { kind: 'error' });
      return;
    }
  }
  const name = el('input', { class: 'input', attrs: { name: 'name', value: quiz ? quiz.quiz.name : '', maxlength: 200, required: true } });
  const description = el('textarea', { class: 'input', text: quiz ? quiz.quiz.description : '', attrs: { name: 'description', rows: 2, maxlength: 2000 } });
  const published = el('input', { attrs: { type: 'checkbox', checked: quiz ? Boolean(quiz.quiz.publishedAt) : false } });
  const questions = el('ol', { class: 'quiz-question-rows', attrs: { 'aria-label': 'Questions' } });
  makeReorderable(questions, () => {});
  for (const question of quiz ? quiz.questions : []) questionEditor(question, questions);
  if (!quiz) questionEditor(null, questions);
  const error = el('p', { class: 'form-error', attrs: { role: 'alert' } });
  const form = el('form', { class: 'admin-form', attrs: { novalidate: true } }, [
    el('h2', { text: quiz ? 'Edit “' + quiz.quiz.name + '”' : 'New quiz' }),
    el('label', { class: 'field' }, [el('span', { class: 'field-label', text: 'Name' }), name]),
    el('label', { class: 'field' }, [el('span', { class: 'field-label', text: 'Description' }), description]),
    el('label', { class: 'admin-check' }, [published, el('span', { text: 'Published' })]),
    el('h3', { text: 'Questions' }),
    el('p', { class: 'field-hint', text: 'Tick the right answer (more than one may be right). Drag a question by its handle, or focus the handle and use the arrow keys, to reorder.' }),
    questions,
    el('button', { class: 'btn admin-add-question', text: 'Add question', attrs: { type: 'button' }, on: { click: () => questionEditor(null, questions).focus() } }),
    error,
    el('div', { class: 'admin-form-actions' }, [
      el('button', { class: 'btn', text: 'Cancel', attrs: { type: 'button' }, on: { click: closeForm } }),
      el('button', { class: 'btn btn-primary', text: 'Save', attrs: { type: 'submit' } }),
    ]),
  ]);
  parts.form.replaceChildren(form);
  parts.form.hidden = false;
  name.focus();
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    const body = { name: name.value, description: description.value, published: published.checked, questions: collect(questions) };
    try {
      if (quiz) await api('/api/v1/channel/quizzes/' + encodeURIComponent(quiz.quiz.id), { method: 'PATCH', body });
      else await api('/api/v1/channel/quizzes', { method: 'POST', body });
      ctx.toast(quiz ? 'Saved.' : 'Quiz added.');
      closeForm();
      load();
    } catch (failure) {
      error.textContent = failure.message;
    }
  });
}

function closeForm() {
  parts.form.hidden = true;
  parts.form.replaceChildren();
}
