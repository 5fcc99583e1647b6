// The "Go live" dialog: optional passcode, download switch, then POST /api/v1/sessions and on to
// the presenter console.

import { t } from '../core/i18n.js';
import { api } from '../core/api.js';
import { el, icon, modalDialog } from '../core/ui.js';
import { switchField, submitToStart } from '../core/start-dialog.js';

/** Opens the dialog for a deck ({id, title, pageCount, thumbnailUrl}); `courseDeck`: another
 * teacher's deck placed in the course the launch came from, whose session stays theirs. */
export function openGoLive(deck, { courseDeck = false } = {}) {
  const passcode = el('input', {
    class: 'input',
    attrs: {
      type: 'text', name: 'passcode', id: 'golive-passcode', maxlength: '64', autocomplete: 'off',
      spellcheck: 'false', placeholder: t('library.golive-no-passcode'), 'aria-describedby': 'golive-passcode-hint',
    },
  });
  const download = el('input', { attrs: { type: 'checkbox', name: 'allowDownload', id: 'golive-download', role: 'switch' } });
  const listed = el('input', { attrs: { type: 'checkbox', name: 'listed', id: 'golive-listed', role: 'switch', checked: true } });
  const publicQuestions = el('input', { attrs: { type: 'checkbox', name: 'questionsPublic', id: 'golive-questions-public', role: 'switch' } });
  const approval = el('input', { attrs: { type: 'checkbox', name: 'questionsApproval', id: 'golive-questions-approval', role: 'switch', disabled: true } });
  publicQuestions.addEventListener('change', () => {
    approval.disabled = !publicQuestions.checked;
    if (!publicQuestions.checked) approval.checked = false;
  });
  const error = el('p', { class: 'form-error', attrs: { role: 'alert' } });
  const cancel = el('button', { class: 'btn', text: t('common.cancel'), attrs: { type: 'button' } });
  const start = el('button', { class: 'btn btn-primary', attrs: { type: 'submit', id: 'golive-start' } }, [icon('broadcast'), t('library.golive-start')]);
  const summary = el('div', { class: 'golive-summary' }, [
    deck.thumbnailUrl ? el('img', { attrs: { src: deck.thumbnailUrl, alt: '' } }) : null,
    el('div', {}, [
      el('strong', { text: deck.title }),
      el('span', { text: deck.pageCount ? t('library.pages', { count: deck.pageCount }) : '' }),
    ]),
  ]);
  const { dialog, content: form } = modalDialog({
    title: t('library.go-live'), id: 'golive-dialog', form: true, open: false, actions: [cancel, start], body: [
      summary,
      courseDeck ? el('p', { class: 'field-hint', text: t('library.golive-course-deck'), attrs: { id: 'golive-course-deck' } }) : null,
      el('label', { class: 'field', attrs: { for: 'golive-passcode' } }, [
        el('span', { class: 'field-label', text: t('library.golive-passcode') }),
        passcode,
        el('span', { class: 'field-hint', text: t('library.golive-passcode-hint'), attrs: { id: 'golive-passcode-hint' } }),
      ]),
      switchField(listed, t('library.golive-listed'), t('library.golive-listed-hint')),
      switchField(download, t('library.golive-download')),
      switchField(publicQuestions, t('library.golive-questions-public'), t('library.golive-questions-public-hint')),
      switchField(approval, t('library.golive-approval'), t('library.golive-approval-hint')),
      error,
    ],
  });
  cancel.addEventListener('click', () => dialog.close());
  submitToStart(form, {
    error, start,
    async create() {
      const body = {
        deckId: deck.id, allowDownload: download.checked, unlisted: !listed.checked,
        questions: { public: publicQuestions.checked, approval: publicQuestions.checked && approval.checked },
      };
      const code = passcode.value.trim();
      if (code) body.passcode = code;
      const session = await api('/api/v1/sessions', { method: 'POST', body });
      return '/present/' + encodeURIComponent(session.code);
    },
  });
  dialog.showModal();
  passcode.focus();
  return dialog;
}
