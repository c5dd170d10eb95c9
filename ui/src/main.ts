// Entry point of the side panel (index.html): chat with streamed answers, the
// live timeline of tool calls, conversations, settings, the first-run screen
// (how to start a model, or the server's models to choose from),
// and the `/` tool palette. State changes go through state.ts; the core is
// reached only through ipc.ts.
//
// Stable hooks for e2e tests (ids unless noted):
//   #composer (textarea), #send, #stop, #messages with .msg.user / .msg.assistant
//   (.msg.error, .msg.notice; .streaming while tokens arrive; data-run),
//   #timeline with .call items (data-tool, data-status = running|ok|error,
//   data-call, data-scope = the scope the gate graded, absent until the
//   result), .shot (screenshot thumbnail button), #image-overlay (dialog),
//   #new-chat, #conversations-open, #conversations (list; .conversation buttons
//   with data-id), #settings-open, #settings-form, #preset, #base-url, #model,
//   #api-key, #api-key-delete, #api-key-state, #chromium, #settings-menu
//   (buttons with data-section), #check-model-status, #first-run-provider,
//   #first-run-key, #first-run-use, #first-run-status,
//   #language, #autostart, #settings-save, #check-model, #rules (.rule with
//   data-rule, .remove-rule), #rule-site, #rule-tool, #rule-decision, #rule-add,
//   #first-run, #retry, #palette-open, #palette (dialog), #palette-search,
//   #palette-list (.palette-item with data-tool), #palette-args, #palette-run,
//   #palette-result, #ask-page, #summarise-page, #compare-tabs, #task-tabs,
//   #tab-mentions (hooks in chat/tabs-view.ts), #watches-open (its unread count in .unread-count),
//   #watches (hooks in watches-view.ts), #memory-open, #memory-view (hooks in
//   memory/memory-view.ts), #routines-open, #routines-view and
//   #save-routine-dialog (hooks in routines/routines-view.ts; .save-routine
//   under a finished answer whose run would save, data-run), #back-to-chat, #not-connected,
//   .open-view (a creator skill's step: opens #creator-dialog, hooks in
//   creator-view.ts).
// Keys: Enter sends, Shift+Enter new line, Esc stops the run or closes the open
// dialog, Ctrl+K (or "/" in an empty composer) opens the palette.

import { createPalette } from "./palette/palette-view";
import { h } from "./dom";
import { pickLanguage, translator, type Lang, type Translate } from "./i18n";
import { isConnected, onEvent, onNavigate, request, sendOp } from "./ipc";
import { toOpError, type ModelStatus } from "./protocol";
import { initialState, reduce, runIds, type Action, type PanelState } from "./state";
import { renderBanners, renderMessages, renderTimeline, type OpenView, type Shots } from "./chat/chat-view";
import { linkTarget } from "./chat/markdown";
import { hasCreatorView } from "./creator/creator";
import { renderCreatorView } from "./creator/creator-view";
import { renderSettings } from "./settings/settings-view";
import { UNKNOWN_STATUS, needsChoice, remember, remembered, warningsKey } from "./models/models";
import { renderSetup } from "./models/setup-view";
import { renderInUse, renderModelList } from "./models/models-view";
import { paletteQuery } from "./palette/palette";
import { button, fillList, formatTime, navButton, renderHeader, renderNotConnected } from "./view";
import { createWatchesView } from "./watches/watches-view";
import { createMemoryView } from "./memory/memory-view";
import { createRoutinesView } from "./routines/routines-view";
import { createTabsComposer } from "./chat/tabs-view";
import "./style.css";

type View = "chat" | "conversations" | "settings" | "watches" | "memory" | "routines";
const VIEWS: readonly View[] = ["chat", "conversations", "settings", "watches", "memory", "routines"];

async function chooseLanguage(): Promise<Lang> {
  if (isConnected()) {
    try {
      const r = await request({ type: "get_settings" }, "settings");
      if (r.settings.language === "en" || r.settings.language === "vi") return r.settings.language;
    } catch {
      // The system language then.
    }
  }
  return pickLanguage(navigator.language);
}

function start(root: HTMLElement, lang: Lang): void {
  const t: Translate = translator(lang);
  document.documentElement.lang = lang;
  let state: PanelState = initialState;
  let view: View = "chat";

  // ---- Screenshots (ReadArtifact → data URL, cached) ----
  const shotUrls = new Map<string, string>();
  const shotLoads = new Map<string, Promise<string>>();
  const overlayImg = h("img", { alt: "", class: "full" });
  const overlayClose = button("image-overlay-close", "✕", "icon", t("close"));
  const overlay = h("dialog", { id: "image-overlay", class: "overlay", "aria-label": t("overlayLabel") }, overlayClose, overlayImg);
  overlayClose.addEventListener("click", () => overlay.close());
  overlay.addEventListener("click", (e) => {
    if (e.target === overlay) overlay.close();
  });
  const shots: Shots = {
    peek: (ref) => shotUrls.get(ref),
    load(ref) {
      let p = shotLoads.get(ref);
      if (!p) {
        p = request({ type: "read_artifact", reference: ref }, "artifact").then((a) => {
          const url = `data:${a.mime};base64,${a.data}`;
          shotUrls.set(ref, url);
          return url;
        });
        p.catch(() => shotLoads.delete(ref));
        shotLoads.set(ref, p);
      }
      return p;
    },
    open(url, alt) {
      overlayImg.src = url;
      overlayImg.alt = alt;
      overlay.showModal();
      overlayClose.focus();
    },
  };

  // ---- A creator skill's view of its result (opened from its timeline step) ----
  const creatorTitle = h("h2", { id: "creator-dialog-title" });
  const creatorBody = h("div", { class: "creator-dialog-body" });
  const creatorClose = button("creator-dialog-close", "✕", "icon", t("close"));
  const creatorDialog = h(
    "dialog",
    { id: "creator-dialog", class: "creator-dialog", "aria-labelledby": "creator-dialog-title" },
    h("div", { class: "dialog-head" }, creatorTitle, creatorClose),
    creatorBody,
  );
  creatorClose.addEventListener("click", () => creatorDialog.close());
  const openView: OpenView = (row) => {
    if (row.data === null || !hasCreatorView(row.tool)) return;
    creatorTitle.textContent = t(`creatorTitle.${row.tool}`);
    creatorBody.replaceChildren(renderCreatorView(row.tool, row.data, row.arguments, t, lang));
    if (!creatorDialog.open) creatorDialog.showModal();
    creatorClose.focus();
  };

  // ---- Header ----
  // Each with its symbol and a word a person reads (#43 item 8); the full
  // name is its label and tooltip.
  const newChat = navButton("new-chat", "+", t("navNew"), t("newChat"));
  const convOpen = navButton("conversations-open", "☰", t("navConversations"), t("conversationsOpen"));
  const paletteOpen = navButton("palette-open", "/", t("navTools"), t("paletteOpen"));
  const settingsOpen = navButton("settings-open", "⚙", t("navSettings"), t("settingsOpen"));
  const watchesOpen = navButton("watches-open", "★", t("navWatches"), t("watchesOpen"));
  const memoryOpen = navButton("memory-open", "◉", t("navMemory"), t("memoryOpen"));
  const routinesOpen = navButton("routines-open", "↻", t("navRoutines"), t("routinesOpen"));
  const unreadCount = h("span", { class: "unread-count", "aria-hidden": "true" });
  watchesOpen.append(unreadCount);
  const showUnread = (unread: number): void => {
    unreadCount.textContent = unread > 0 ? String(unread) : "";
    const label = unread > 0 ? t("watchesOpenUnread", { count: unread }) : t("watchesOpen");
    watchesOpen.setAttribute("aria-label", label);
    watchesOpen.title = label;
  };
  const header = renderHeader(t, newChat, convOpen, watchesOpen, routinesOpen, memoryOpen, paletteOpen, settingsOpen);

  // ---- Chat view ----
  const banners = h("div", { id: "banners", class: "banners" });
  const firstRun = h("section", { id: "first-run", class: "notice first-run", "aria-labelledby": "first-run-title" });
  firstRun.hidden = true;
  const messages = h("ol", { id: "messages", class: "messages", "aria-label": t("chatLabel"), "aria-live": "polite" });
  const emptyHint = h("p", { class: "empty-chat" }, t("emptyChat"));
  const timeline = h("div", { class: "timeline-body" });
  const timelineSection = h(
    "section",
    { id: "timeline", class: "timeline", "aria-labelledby": "timeline-title" },
    h("h2", { id: "timeline-title" }, t("timelineTitle")),
    timeline,
  );
  const scroller = h("div", { class: "chat-scroll", id: "chat-scroll" }, firstRun, emptyHint, messages, timelineSection);
  const composer = h("textarea", {
    id: "composer",
    rows: "2",
    placeholder: t("composerPlaceholder"),
    "aria-label": t("composerLabel"),
    autocomplete: "off",
  });
  const send = h("button", { id: "send", type: "submit", class: "primary" }, t("send"));
  const stop = h("button", { id: "stop", type: "button", class: "danger", "aria-label": t("stopHint"), title: t("stopHint") }, "■ " + t("stop"));
  const tabsComposer = createTabsComposer(
    composer,
    t,
    (text, tabs) => sendMessage(text, tabs),
    (message) => dispatch({ kind: "failed", message }),
  );
  const composerForm = h(
    "form",
    { id: "composer-form", class: "composer" },
    tabsComposer.chips,
    composer,
    h("div", { class: "composer-actions" }, tabsComposer.actions, stop, send),
  );
  const chatView = h("section", { id: "chat", class: "view view-chat" }, scroller, composerForm);

  // ---- Other views ----
  const backBtn = (): HTMLButtonElement => {
    const b = h("button", { type: "button", class: "secondary back", "data-testid": "back-to-chat" }, "← " + t("backToChat"));
    b.addEventListener("click", () => show("chat"));
    return b;
  };
  const convList = h("ul", { id: "conversations", class: "conversations" });
  const convSearch = h("input", {
    id: "conversation-search",
    type: "search",
    autocomplete: "off",
    spellcheck: "false",
    placeholder: t("conversationSearchPlaceholder"),
    "aria-label": t("conversationSearch"),
  });
  let searchTimer = 0;
  convSearch.addEventListener("input", () => {
    window.clearTimeout(searchTimer);
    searchTimer = window.setTimeout(() => loadConversations(), 250);
  });
  const convView = h(
    "section",
    { id: "conversations-view", class: "view", "aria-labelledby": "conversations-title" },
    backBtn(),
    h("h2", { id: "conversations-title" }, t("conversationsTitle")),
    convSearch,
    convList,
  );
  const settingsView = h("section", { id: "settings-view", class: "view" });
  const watches = createWatchesView(t, lang, backBtn);
  const watchesView = watches.element;
  const memory = createMemoryView(t, lang, backBtn);
  const routines = createRoutinesView(t, lang, backBtn, () => undefined);
  const views: Record<View, HTMLElement> = {
    chat: chatView,
    conversations: convView,
    settings: settingsView,
    watches: watchesView,
    memory: memory.element,
    routines: routines.element,
  };

  const palette = createPalette(t, lang, () => composer.focus());
  const mainEl = h("main", { class: "panel" }, chatView, convView, settingsView, watchesView, memory.element, routines.element);
  root.replaceChildren(header, banners, mainEl, palette.element, overlay, creatorDialog, routines.dialog);
  if (!isConnected()) root.insertBefore(renderNotConnected(t), banners);

  // A link in an answer opens in the managed browser, never in the panel.
  messages.addEventListener("click", (e) => {
    const saveBtn = e.target instanceof Element ? e.target.closest<HTMLElement>(".save-routine") : null;
    if (saveBtn?.dataset.run !== undefined) {
      routines.openSave(saveBtn.dataset.run);
      return;
    }
    // "Set up the model" under an answer no model could give: the set-up card.
    if (e.target instanceof Element && e.target.closest(".setup-model") !== null) {
      // (A model that answers again by now: its settings instead.)
      void checkModel().then(() => (firstRun.hidden ? show("settings") : firstRun.scrollIntoView({ block: "start" })));
      return;
    }
    const url = linkTarget(e.target);
    if (url === null) return;
    e.preventDefault();
    sendOp({ type: "open_page", url }).catch((error: unknown) =>
      dispatch({ kind: "failed", message: t("errorPrefix", { error: toOpError(error).message }) }),
    );
  });

  // ---- Rendering ----
  const render = (): void => {
    const nearBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
    messages.replaceChildren(...renderMessages(state, t));
    timeline.replaceChildren(...renderTimeline(state, t, lang, shots, openView));
    timelineSection.hidden = state.calls.length === 0;
    banners.replaceChildren(...renderBanners(state, t, lang, resumeAgent));
    emptyHint.hidden = state.messages.length > 0 || state.running;
    stop.disabled = !state.running;
    send.disabled = state.running;
    if (nearBottom) scroller.scrollTop = scroller.scrollHeight;
  };
  // The finished runs asked about once: can each be saved as a routine?
  const askedSavable = new Set<string>();
  const askSavable = (): void => {
    if (state.running) return;
    for (const m of state.messages) {
      const runId = m.runId;
      if (m.role !== "assistant" || runId === null || m.streaming || askedSavable.has(runId)) continue;
      askedSavable.add(runId);
      request({ type: "can_save_routine", run_id: runId }, "routine_savable").then(
        ({ refusal }) => dispatch({ kind: "savable", runId, savable: refusal === null }),
        () => undefined,
      );
    }
  };
  const dispatch = (action: Action): void => {
    state = reduce(state, action);
    render();
    askSavable();
  };

  const show = (next: View): void => {
    view = next;
    for (const v of VIEWS) views[v].hidden = v !== view;
    if (view === "conversations") loadConversations();
    if (view === "watches") watches.refresh();
    if (view === "routines") routines.refresh();
    memory.setActive(view === "memory");
    if (view === "settings")
      settingsView.replaceChildren(
        backBtn(),
        renderSettings(t, (saved) => {
          // A new language applies at once: the panel is drawn again in it,
          // on the same conversation and view (no restart).
          const next = saved.language === "en" || saved.language === "vi" ? saved.language : pickLanguage(navigator.language);
          if (next !== lang) return relaunch({ conversationId: state.conversationId, view });
          void checkModel();
        }),
      );
    if (view === "chat") composer.focus();
    else views[view].querySelector<HTMLElement>("button, input, select, textarea")?.focus();
  };

  // ---- Actions ----
  // `about`: the tabs a one-click start is about; else the composer's chips.
  function sendMessage(typed?: string, about?: string[]): void {
    const text = (typed ?? composer.value).trim();
    if (text === "" || state.running) return;
    const tabs = about ?? tabsComposer.take();
    if (typed === undefined) composer.value = "";
    dispatch({ kind: "sent", text });
    if (state.paused) {
      // Said in the UI's language, with the banner's Resume beside it.
      dispatch({ kind: "send_failed", message: t("pausedSend") });
      return;
    }
    request({ type: "send_message", text, conversation_id: state.conversationId, tabs }, "run_started").then(
      (r) => dispatch({ kind: "run_started", runId: r.run_id, conversationId: r.conversation_id }),
      (error: unknown) => {
        const e = toOpError(error);
        dispatch({ kind: "send_failed", message: t("errorPrefix", { error: e.message }), ...(e.code === "model_unavailable" ? { code: e.code } : {}) });
      },
    );
  }
  const resumeAgent = (): void => {
    sendOp({ type: "set_paused", paused: false }).catch((error: unknown) =>
      dispatch({ kind: "send_failed", message: t("errorPrefix", { error: toOpError(error).message }) }),
    );
  };
  const stopRun = (): void => {
    if (!state.running) return;
    sendOp({ type: "stop" }).catch((error: unknown) =>
      dispatch({ kind: "send_failed", message: t("errorPrefix", { error: toOpError(error).message }) }),
    );
  };

  function loadConversations(): void {
    convList.replaceChildren(h("li", { class: "loading", role: "status" }, t("loadingList")));
    const query = convSearch.value.trim();
    const op = query === "" ? { type: "list_conversations" as const, limit: 50 } : { type: "list_conversations" as const, limit: 50, query };
    request(op, "conversations").then(
      ({ conversations }) => {
        if (convSearch.value.trim() !== query) return; // a newer search is on its way
        fillList(convList, conversations, query === "" ? t("conversationsEmpty") : t("conversationsNoMatch"), (c) => {
          const b = h(
            "button",
            { type: "button", class: "conversation", "data-id": c.id },
            h("span", { class: "conv-title" }, c.title || "…"),
            h("span", { class: "conv-time" }, t("updatedAt", { time: formatTime(c.updated_at, lang) })),
          );
          b.addEventListener("click", () => openConversation(c.id));
          return h("li", {}, b);
        });
      },
      (error: unknown) => convList.replaceChildren(h("li", { class: "error", role: "alert" }, t("errorPrefix", { error: toOpError(error).message }))),
    );
  }

  function openConversation(id: string): void {
    request({ type: "open_conversation", id }, "conversation").then(
      async (c) => {
        dispatch({ kind: "conversation_opened", id: c.id, title: c.title, messages: c.messages });
        show("chat");
        for (const runId of runIds(c.messages)) {
          try {
            const r = await request({ type: "run_timeline", run_id: runId }, "timeline");
            dispatch({ kind: "timeline_loaded", runId, calls: r.calls });
          } catch {
            // A run without a stored timeline shows no steps.
          }
        }
      },
      (error: unknown) => dispatch({ kind: "send_failed", message: t("errorPrefix", { error: toOpError(error).message }) }),
    );
  }

  // No model can be used yet: the set-up card (models/setup-view.ts).
  const renderFirstRun = (s: ModelStatus): void => {
    firstRun.replaceChildren(...renderSetup(t, s, { recheck: () => checkModel(), openSettings: () => show("settings") }));
  };
  // A server that answers, no model chosen yet: its models to choose from.
  const renderChoice = (s: ModelStatus): void => {
    const pick = (name: string): void => {
      request({ type: "get_settings" }, "settings")
        .then((r) => request({ type: "save_settings", settings: { ...r.settings, model: name } }, "settings"))
        .then(() => checkModel())
        .catch((error: unknown) => dispatch({ kind: "send_failed", message: t("errorPrefix", { error: toOpError(error).message }) }));
    };
    firstRun.replaceChildren(
      h("h2", { id: "first-run-title" }, t("firstRunChooseTitle")),
      h("p", {}, t("firstRunFound", { url: s.base_url })),
      // None is in use until one is chosen here.
      renderModelList(t, { ...s, model: s.chosen ? s.model : null }, pick),
    );
  };
  // The model in use works, with warnings (no tool calling, a small context).
  const renderWarnings = (s: ModelStatus): void => {
    const dismiss = h("button", { type: "button", class: "secondary", "data-testid": "first-run-dismiss" }, t("close"));
    const toSettings = h("button", { type: "button", class: "secondary", "data-testid": "first-run-settings" }, t("settingsOpen"));
    // Closed, it stays closed for this model and these warnings.
    dismiss.addEventListener("click", () => {
      firstRun.hidden = true;
      remember(warningsKey(s));
    });
    toSettings.addEventListener("click", () => show("settings"));
    firstRun.replaceChildren(renderInUse(t, s), h("div", { class: "row" }, toSettings, dismiss));
  };
  async function checkModel(): Promise<void> {
    if (!isConnected()) return;
    try {
      const { status } = await request({ type: "check_model" }, "model_status");
      const usable = status.reachable && status.problem === null;
      const warned = status.warnings.length > 0 && !remembered(warningsKey(status));
      firstRun.hidden = usable && !needsChoice(status) && !warned;
      if (!usable && !needsChoice(status)) renderFirstRun(status);
      else if (needsChoice(status)) renderChoice(status);
      else if (warned) renderWarnings(status);
    } catch (error) {
      firstRun.hidden = false;
      renderFirstRun({ ...UNKNOWN_STATUS, message: toOpError(error).message });
    }
  }

  // ---- Wiring ----
  composerForm.addEventListener("submit", (e) => {
    e.preventDefault();
    sendMessage();
  });
  composer.addEventListener("keydown", (e) => {
    // isComposing: Vietnamese input methods use Enter to commit a word.
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      sendMessage();
    }
  });
  composer.addEventListener("input", () => {
    const query = paletteQuery(composer.value);
    if (query !== null && composer.value === "/") {
      composer.value = "";
      palette.open(query);
    }
  });
  stop.addEventListener("click", stopRun);
  newChat.addEventListener("click", () => {
    dispatch({ kind: "new_conversation" });
    show("chat");
  });
  convOpen.addEventListener("click", () => show(view === "conversations" ? "chat" : "conversations"));
  settingsOpen.addEventListener("click", () => show(view === "settings" ? "chat" : "settings"));
  watchesOpen.addEventListener("click", () => show(view === "watches" ? "chat" : "watches"));
  memoryOpen.addEventListener("click", () => show(view === "memory" ? "chat" : "memory"));
  routinesOpen.addEventListener("click", () => show(view === "routines" ? "chat" : "routines"));
  paletteOpen.addEventListener("click", () => palette.open());
  document.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "k") {
      e.preventDefault();
      palette.open();
      return;
    }
    if (e.key === "Escape" && !e.defaultPrevented) {
      // An open <dialog> closes itself on Esc; otherwise Esc stops the run.
      if (palette.element.open || overlay.open || creatorDialog.open || routines.dialog.open) return;
      if (view !== "chat") show("chat");
      else stopRun();
    }
  });

  void onEvent((event) => {
    if (event.type === "watches") {
      // The tray's count, and the view when it is open.
      showUnread(event.unread);
      if (view === "watches") watches.refresh();
      return;
    }
    if (event.type === "routines") {
      if (view === "routines") routines.refresh();
      return;
    }
    dispatch({ kind: "event", event });
  });
  if (isConnected()) request({ type: "list_alerts", limit: 1 }, "alerts").then((r) => showUnread(r.unread), () => undefined);
  void onNavigate((target) => {
    const v = VIEWS.find((x) => x === target);
    if (v) show(v);
  });

  const resumed = takeResume();
  show(resumed?.view ?? "chat");
  if (resumed?.conversationId) openConversation(resumed.conversationId);
  render();
  void checkModel();
}

/** What the panel shows, kept across a redraw in another language. */
interface Resume {
  conversationId: string | null;
  view: View;
}
const RESUME_KEY = "halley.resume";

/** Draw the panel again (the new language is read from the settings),
 * coming back to the same conversation and view. */
function relaunch(keep: Resume): void {
  sessionStorage.setItem(RESUME_KEY, JSON.stringify(keep));
  location.reload();
}

function takeResume(): Resume | null {
  const raw = sessionStorage.getItem(RESUME_KEY);
  sessionStorage.removeItem(RESUME_KEY);
  if (raw === null) return null;
  try {
    const v = JSON.parse(raw) as Partial<Resume>;
    const view = VIEWS.find((x) => x === v.view) ?? "chat";
    return { conversationId: typeof v.conversationId === "string" ? v.conversationId : null, view };
  } catch {
    return null;
  }
}

async function boot(root: HTMLElement): Promise<void> {
  if (import.meta.env.DEV && new URLSearchParams(location.search).has("demo")) {
    const demo = await import("./demo");
    demo.installDemo();
    demo.autoSend();
  }
  start(root, await chooseLanguage());
}

const root = document.getElementById("app");
// `data-ready="1"` on <body> once the first render is done (or failed): the
// e2e tests and `make bench-desktop` wait for it.
if (root)
  void boot(root).finally(() => {
    document.body.dataset.ready = "1";
  });
