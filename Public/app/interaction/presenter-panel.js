// The presenter's side of audience interaction, in the console's side panel: tabs Join · Polls ·
// Questions · Viewers, and a "viewers follow me" toggle in the toolbar. Each tab's job has its own
// file beside this one:
//
//   presenter-polls.js      the newest poll (chart, response rate, answers, word cloud, buttons),
//                           earlier polls, the quiz leaderboard
//   question-bank.js        the deck's question bank and the poll editor
//   presenter-questions.js  the audience's questions (mode, sort, approve, mark answered)
//   presenter-spotlight.js  results on stage: "Show on screen" / "Take off screen" for everyone
//
// This file wires them: the tabs, the lock, the viewer list, and what each update refreshes.
//
// State for tests and CSS: see each file; here .tab-badge[data-role=unread],
// [data-action=lock][aria-pressed], .viewer-item[data-viewer-id][data-connected].

import { t, errorText } from '../core/i18n.js';
import { el, toast, icon } from '../core/ui.js';
import { InteractionState } from './state.js';
import { PollsPane } from './presenter-polls.js';
import { QuestionBank } from './question-bank.js';
import { QuestionsPane } from './presenter-questions.js';
import { OnScreen } from './presenter-spotlight.js';

export class PresenterInteraction {
  /**
   * @param {object} o
   * @param {import('../live/live.js').LiveClient} o.live
   * @param {string} o.code
   * @param {string|null} [o.deckId]  the deck whose question bank the polls tab shows (none: ad hoc polls only)
   * @param {(page:number)=>void} [o.gotoPage]  a question's slide badge goes there
   * @param {HTMLElement} o.panel     the side panel (#join-panel): its children become the Join tab
   * @param {HTMLElement} [o.controls]  the toolbar (#controls), for the lock toggle when the bar has no room
   * @param {HTMLInputElement} [o.lockSwitch]  the "viewers follow my slide" switch (none: no lock toggle)
   * @param {HTMLElement} [o.stage]  what the spotlight covers on this page (default #stage-wrap)
   */
  constructor(o) {
    this.live = o.live;
    this.code = o.code;
    this.deckId = o.deckId || null;
    this.gotoPage = o.gotoPage || (() => {});
    this.panel = o.panel;
    this.lockSwitch = o.lockSwitch || null;
    this.tab = 'join';
    this.state = new InteractionState(this.live);
    const send = (command, failure) => this.send(command, failure);
    this.onScreen = new OnScreen({ live: this.live, send, stage: o.stage !== undefined ? o.stage : document.getElementById('stage-wrap') });
    this.buildTabs();
    this.polls = new PollsPane({
      live: this.live, state: this.state, send, onScreen: this.onScreen, container: this.panes.polls,
      reveal: () => this.showTab('polls'),
    });
    this.bank = new QuestionBank({
      deckId: this.deckId, container: this.panes.polls, openPoll: (poll, options) => this.polls.openPoll(poll, options),
    });
    this.panes.polls.prepend(this.onScreen.line);
    this.questions = new QuestionsPane({
      live: this.live, state: this.state, send, gotoPage: (page) => this.gotoPage(page), onScreen: this.onScreen,
      container: this.panes.questions, tab: this.tabs.questions, badge: this.unreadBadge,
    });
    this.showTab('join');
    this.state.addEventListener('update', (e) => this.onUpdate(e.detail));
    this.buildLock(o.controls);
    this.live.addEventListener('change', (e) => {
      this.renderLock();
      const type = e.detail.event.type;
      if (type === 'ended') this.questions.renderQuestionMode();
      if (type === 'spotlight' || type === 'ended') this.renderOnScreen();
    });
    this.live.addEventListener('sync', () => {
      this.renderLock();
      this.renderOnScreen();
    });
    this.live.addEventListener('welcome', () => this.renderLock());
    // "3 min ago" moves on while the list is on screen.
    setInterval(() => {
      if (this.tab === 'questions' && this.state.questions.length) this.questions.renderQuestions();
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
    const labels = { join: t('panel.tab-join'), polls: t('panel.tab-polls'), questions: t('panel.tab-questions'), viewers: t('panel.tab-viewers') };
    this.tabs = {};
    const bar = el('div', { class: 'side-tabs', attrs: { role: 'tablist', 'aria-label': t('panel.side-panel') } });
    for (const [index, name] of Object.keys(labels).entries()) {
      // Alt+1 … Alt+4 open the tabs (shortcuts.js clicks a control marked data-shortcut-click).
      const tab = el('button', {
        class: 'side-tab', text: labels[name],
        attrs: {
          type: 'button', role: 'tab', id: 'tab-' + name, 'aria-controls': 'pane-' + name, 'data-tab': name,
          'aria-keyshortcuts': 'Alt+' + (index + 1), 'data-shortcut-click': '', title: t('ink.with-key', { label: labels[name], key: 'Alt+' + (index + 1) }),
        },
        on: { click: () => this.showTab(name) },
      });
      this.tabs[name] = tab;
      bar.append(tab);
    }
    this.unreadBadge = el('span', { class: 'tab-badge', attrs: { 'data-role': 'unread', 'aria-label': t('panel.unread') } });
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
    this.buildViewersPane();
  }

  showTab(name) {
    this.tab = name;
    for (const [key, pane] of Object.entries(this.panes)) {
      pane.hidden = key !== name;
      this.tabs[key].setAttribute('aria-selected', String(key === name));
      this.tabs[key].tabIndex = key === name ? 0 : -1;
    }
    this.panel.dataset.tab = name;
    if (name === 'questions' && this.questions) this.questions.markSeen();
  }

  // ---- navigation lock ----

  buildLock(controls) {
    if (!this.lockSwitch) return; // a page without the switch (a room's moderator) has no lock here
    this.lockButton = el('button', {
      class: 'btn lock-toggle', attrs: { type: 'button', 'data-action': 'lock', 'aria-pressed': 'true' },
      on: { click: () => this.lockSwitch.click() },
    }, [el('span', { class: 'lock-icon' }), el('span', { class: 'btn-label' })]);
    this.lockSwitch.addEventListener('change', () => this.renderLock(this.lockSwitch.checked));
    // In the console's bar, next to the viewer count: the toolbar below has no room to spare.
    const bar = document.querySelector('.console-bar');
    const end = document.getElementById('end-session');
    if (bar && end) bar.insertBefore(this.lockButton, end);
    else if (controls) controls.append(this.lockButton);
    this.renderLock();
  }

  renderLock(locked = this.live.state.locked !== false) {
    if (!this.lockButton) return;
    const label = locked ? t('panel.follow-me') : t('panel.browse-freely');
    this.lockButton.setAttribute('aria-pressed', String(locked));
    this.lockButton.dataset.locked = String(locked);
    this.lockButton.title = locked ? t('panel.follow-me-title') : t('panel.browse-freely-title');
    this.lockButton.setAttribute('aria-label', label);
    this.lockButton.querySelector('.lock-icon').replaceChildren(icon(locked ? 'lock' : 'unlock', 18));
    this.lockButton.querySelector('.btn-label').textContent = label;
    this.lockButton.disabled = Boolean(this.live.state.ended) || this.lockSwitch.disabled;
  }

  // ---- sending ----

  async send(command, failure = t('panel.not-sent')) {
    try {
      return await this.live.send(command);
    } catch (error) {
      toast(error && (error.code || error.message) ? errorText(error) : failure, { kind: 'error' });
      throw error;
    }
  }


  onUpdate({ kind, added, event }) {
    if (kind === 'questions' || kind === 'welcome') {
      const looking = this.tab === 'questions' && this.panelVisible();
      if (kind === 'questions' && !looking) this.questions.announce(added);
      if (looking) this.questions.markSeen();
      this.questions.renderQuestions();
      this.questions.renderUnread();
    }
    if (kind === 'viewers' || kind === 'welcome') this.renderViewers();
    if (kind === 'polls' || kind === 'results' || kind === 'welcome' || kind === 'leaderboard') this.polls.render();
    if (kind === 'questionMode' || kind === 'welcome') this.questions.renderQuestionMode();
    if (kind === 'polls' || kind === 'welcome') this.onScreen.renderLine(this.state.polls);
    if (kind === 'polls' && event && event.type === 'pollOpened' && this.tab !== 'polls') this.showTab('polls');
  }

  /** What is on screen changed: the toggles and the line in the panel follow. */
  renderOnScreen() {
    this.onScreen.renderLine(this.state.polls);
    this.polls.render();
    this.questions.renderQuestions();
  }

  panelVisible() {
    return this.panel.offsetParent !== null && getComputedStyle(this.panel).visibility !== 'hidden';
  }

  // ---- viewers ----

  buildViewersPane() {
    this.viewerList = el('ul', { class: 'viewer-list', attrs: { 'aria-label': t('panel.viewers') } });
    this.panes.viewers.append(
      el('div', { class: 'pane-head' }, [el('h2', { text: t('panel.viewers') }), el('span', { class: 'pane-count', attrs: { 'data-role': 'viewer-summary' } })]),
      this.viewerList,
    );
    this.renderViewers();
  }

  renderViewers() {
    const viewers = this.state.viewers.slice().sort((a, b) => Number(b.connected) - Number(a.connected) || a.name.localeCompare(b.name));
    const connected = viewers.filter((v) => v.connected).length;
    const summary = this.panes.viewers.querySelector('[data-role=viewer-summary]');
    summary.textContent = viewers.length ? t('panel.viewers-summary', { connected, joined: viewers.length }) : '';
    this.viewerList.replaceChildren();
    if (!viewers.length) {
      this.viewerList.append(el('li', { class: 'pane-empty' }, [el('strong', { text: t('panel.nobody-joined') }), el('span', { text: t('panel.nobody-joined-hint') })]));
      return;
    }
    for (const v of viewers) {
      this.viewerList.append(el('li', { class: 'viewer-item', data: { viewerId: v.id, connected: String(v.connected) } }, [
        el('span', { class: 'presence-dot' + (v.connected ? ' is-on' : ''), attrs: { 'aria-label': v.connected ? t('panel.connected') : t('panel.not-connected'), role: 'img' } }),
        el('span', { class: 'viewer-name', text: v.name }),
        v.questions ? el('span', { class: 'viewer-questions', text: t('panel.viewer-questions', { count: v.questions }) }) : null,
      ]));
    }
  }
}

/**
 * Mounts the interaction panel. Options: see PresenterInteraction (live, code, panel required;
 * deckId, gotoPage, controls, lockSwitch, stage optional).
 */
export function mountPresenterInteraction(options) {
  return new PresenterInteraction(options);
}
