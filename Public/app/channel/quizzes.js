// The channel's quizzes: the current quiz and the archive (members take any; others the newest
// only, and see the membership message for the rest), each with the person's best score. A quiz
// is taken one question at a time: choosing an answer moves on; the score comes at the end,
// scored by the server, with the right answers and a share button.
import { api } from '../core/api.js';
import { errorText, formatDate, formatList, t } from '../core/i18n.js';
import { el, icon } from '../core/ui.js';
import { useStylesheet } from './stylesheet.js';

let ctx = null;
let root = null;
const parts = {};
let run = null; // {quiz, questions, index, choices}

export async function mount(section, context) {
  await useStylesheet('/app/channel/quizzes.css');
  ctx = context;
  root = section;
  root.classList.add('quizzes');
  parts.list = el('div', { class: 'quiz-browse' });
  parts.take = el('article', { class: 'quiz-take', attrs: { hidden: true } });
  root.append(parts.list, parts.take);
}

export function show(route) {
  const id = route && route[0];
  parts.list.hidden = Boolean(id);
  parts.take.hidden = !id;
  if (id) start(id);
  else loadList();
}

function dateText(iso) {
  return iso ? formatDate(iso, { year: 'numeric', month: 'short', day: 'numeric' }) : '';
}

function scoreText(result) {
  return result ? t('channel.quiz.best', { score: result.bestScore, total: result.total }) : t('channel.quiz.not-taken');
}

async function loadList() {
  parts.list.replaceChildren(el('p', { class: 'quiz-status', text: t('channel.loading') }));
  let quizzes;
  try {
    quizzes = await api('/api/v1/channel/quizzes');
  } catch (error) {
    parts.list.replaceChildren(el('p', { class: 'quiz-status', text: errorText(error) }));
    return;
  }
  if (quizzes.length === 0) {
    parts.list.replaceChildren(el('p', { class: 'quiz-status', text: t('channel.quiz.none') }));
    return;
  }
  const [current, ...archive] = quizzes;
  parts.list.replaceChildren(...[
    el('h2', { class: 'quiz-heading', text: t('channel.quiz.current') }),
    quizCard(current, true),
    archive.length ? el('h2', { class: 'quiz-heading', text: t('channel.quiz.archive') }) : null,
    archive.length ? el('ul', { class: 'quiz-archive', attrs: { 'aria-label': t('channel.quiz.archive') } }, archive.map((q) => el('li', {}, [quizCard(q, false)]))) : null,
  ].filter(Boolean));
}

function quizCard(quiz, current) {
  const meta = [dateText(quiz.publishedAt), t('channel.quiz.questions', { count: quiz.questionCount })].join(' · ');
  return el('a', { class: 'quiz-card' + (current ? ' quiz-current' : ''), data: { id: quiz.id }, attrs: { href: '#quizzes/' + quiz.id } }, [
    el('span', { class: 'quiz-name', text: quiz.name }),
    quiz.description && current ? el('span', { class: 'quiz-description', text: quiz.description }) : null,
    el('span', { class: 'quiz-meta', text: meta }),
    el('span', { class: 'quiz-score', text: scoreText(quiz.result) }),
    quiz.membersOnly ? el('span', { class: 'quiz-lock' }, [icon('lock', 14), el('span', { text: t('channel.members-only') })]) : null,
  ]);
}

async function start(id) {
  parts.take.replaceChildren(el('p', { class: 'quiz-status', text: t('channel.loading') }));
  let body;
  try {
    body = await api('/api/v1/channel/quizzes/' + encodeURIComponent(id));
  } catch (error) {
    const box = el('div', { class: 'quiz-limit' });
    parts.take.replaceChildren(backLink(), box);
    if (error.code === 'membership_required') ctx.showLimit(error, box);
    else box.append(el('p', { class: 'quiz-status', text: errorText(error) }));
    return;
  }
  run = { quiz: body.quiz, questions: body.questions, index: 0, choices: [] };
  if (run.questions.length === 0) {
    parts.take.replaceChildren(backLink(), el('p', { class: 'quiz-status', text: t('channel.quiz.no-questions') }));
    return;
  }
  renderQuestion();
}

function backLink() {
  return el('a', { class: 'btn btn-ghost quiz-back', attrs: { href: '#quizzes' } }, [el('span', { class: 'flip-inline', text: '←', attrs: { 'aria-hidden': 'true' } }), el('span', { text: t('channel.quiz.all') })]);
}

function renderQuestion() {
  const { quiz, questions, index } = run;
  const question = questions[index];
  const progress = el('div', { class: 'quiz-progress', attrs: { role: 'progressbar', 'aria-labelledby': 'quiz-count', 'aria-valuemin': 0, 'aria-valuemax': questions.length, 'aria-valuenow': index } }, [
    el('span', { class: 'quiz-progress-bar' }),
  ]);
  const bar = progress.firstChild;
  bar.style.width = (index / questions.length) * 100 + '%';
  const answers = el(
    'div',
    { class: 'quiz-answers', attrs: { role: 'group', 'aria-label': t('channel.quiz.answers') } },
    question.answers.map((answer) =>
      el('button', {
        class: 'quiz-answer',
        text: answer.text,
        data: { id: answer.id },
        attrs: { type: 'button' },
        on: { click: () => choose(question.id, answer.id) },
      }),
    ),
  );
  parts.take.replaceChildren(...[
    backLink(),
    el('h2', { class: 'quiz-title', text: quiz.name }),
    el('p', { class: 'quiz-count', text: t('channel.quiz.progress', { index: index + 1, count: questions.length }), attrs: { id: 'quiz-count' } }),
    progress,
    el('p', { class: 'quiz-question', text: question.text, attrs: { id: 'quiz-question' } }),
    answers,
  ].filter(Boolean));
  answers.setAttribute('aria-labelledby', 'quiz-question');
  answers.querySelector('button').focus({ preventScroll: true });
}

function choose(questionId, answerId) {
  run.choices.push({ questionId, answerId });
  run.index += 1;
  if (run.index < run.questions.length) renderQuestion();
  else finish();
}

async function finish() {
  parts.take.replaceChildren(el('p', { class: 'quiz-status', text: t('channel.quiz.scoring') }));
  let result;
  try {
    result = await api('/api/v1/channel/quizzes/' + encodeURIComponent(run.quiz.id) + '/attempts', {
      method: 'POST',
      body: { answers: run.choices },
    });
  } catch (error) {
    parts.take.replaceChildren(backLink(), el('p', { class: 'quiz-status', text: errorText(error) }));
    return;
  }
  const byQuestion = new Map(result.questions.map((q) => [q.questionId, q]));
  const review = run.questions.map((question) => {
    const outcome = byQuestion.get(question.id);
    const text = (id) => (question.answers.find((a) => a.id === id) || {}).text || '—';
    return el('li', { class: 'quiz-review-item ' + (outcome.correct ? 'right' : 'wrong') }, [
      el('span', { class: 'quiz-review-question', text: question.text }),
      el('span', { class: 'quiz-review-answer', text: (outcome.correct ? '✓ ' : '✗ ') + text(outcome.chosenAnswerId) }),
      outcome.correct ? null : el('span', { class: 'quiz-review-right', text: t('channel.quiz.right-answer', { answers: formatList(outcome.correctAnswerIds.map(text)) }) }),
    ]);
  });
  const quiz = run.quiz;
  parts.take.replaceChildren(...[
    backLink(),
    el('h2', { class: 'quiz-title', text: quiz.name }),
    el('div', { class: 'quiz-result', attrs: { role: 'status' } }, [
      el('span', { class: 'quiz-result-score', text: t('channel.quiz.score', { score: result.score, total: result.total }) }),
      el('span', { class: 'quiz-result-best', text: t('channel.quiz.your-best', { score: result.bestScore, total: result.total }) }),
    ]),
    el('div', { class: 'quiz-result-actions' }, [
      el('button', { class: 'btn btn-primary quiz-again', text: t('channel.quiz.again'), attrs: { type: 'button' }, on: { click: () => start(quiz.id) } }),
      el('button', {
        class: 'btn quiz-share',
        attrs: { type: 'button' },
        on: {
          click: () =>
            ctx.share({
              title: quiz.name,
              text: t('channel.quiz.share-text', { score: result.score, total: result.total, quiz: quiz.name }),
              url: '/c/quiz/' + encodeURIComponent(quiz.id),
            }),
        },
      }, [icon('share', 18), el('span', { text: t('channel.share') })]),
    ]),
    el('ol', { class: 'quiz-review', attrs: { 'aria-label': t('channel.quiz.your-answers') } }, review),
  ].filter(Boolean));
}
