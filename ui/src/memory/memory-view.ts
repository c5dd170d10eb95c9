// The Memory view: what Halley remembers outside the conversation and how
// it is found again. Sections, each a <section class="memory-section"> with
// its entry in the menu:
//   - the embedder (model, address, how far the passages are; set it here;
//     "Embed now");
//   - search (words, meaning, or both fused: Op::SearchArchival; among all
//     passages or one source's) with each hit's score, why it was found and,
//     for a passage read from a file, its source, file and page;
//   - the sources (knowledge bases of the user's files): made here, files
//     added by their paths (the desktop has no file dialog: a path field,
//     one a line), each file with its status (waiting, reading, embedding,
//     done, skipped or failed with the reason), deleted after a second
//     click;
//   - the archival passages, newest first, each with its embedding status
//     (waiting, embedding, done, failed with its reason).
// Everything goes through ops (ipc.ts); while the view is open it reads
// them again every 2 s (passages the agent stores, statuses moving on).
//
// Stable hooks for e2e tests: #memory-view, #memory-menu (buttons with
// data-section), #memory-embedder, #embedder-state, #memory-counts,
// #memory-embed, #embedder-form, #embedder-url, #embedder-model,
// #embedder-query-prefix, #embedder-passage-prefix, #embedder-input-type,
// #embedder-remote,
// #embedder-save, #embedder-status, #memory-search-form, #memory-query,
// #memory-mode, #memory-source, #memory-search-go, #memory-search-note,
// #memory-results (.memory-hit with data-id; .hit-score, .hit-snippet,
// .hit-why, .hit-origin with data-file and data-page),
// #memory-sources, #source-form, #source-name, #source-description,
// #source-create, #source-status, #source-list (.source with data-name;
// .source-counts, .source-files (.source-file with data-name and
// data-status; .file-status, .file-progress, .file-error), .source-paths,
// .source-add, .source-add-status, .source-delete, .source-delete-yes,
// .source-delete-no),
// #memory-passages, #memory-total, #passage-list (.passage with data-id and
// data-status; .passage-status, .passage-error, .passage-text).

import { h } from "../dom";
import type { Lang, Translate } from "../i18n";
import { request } from "../ipc";
import type { ArchivalHitView, ArchivalPassageView, MemoryEmbedderView, SourceFileView, SourceView } from "../protocol";
import { field, fillList, formatTime, statusLine } from "../view";
import {
  SEARCH_MODES,
  embedStatusKey,
  counted,
  fileProgress,
  fileStatusKey,
  formatScore,
  hitOrigin,
  hitReasons,
  hitWhy,
  matchPercent,
  modeKey,
  parseMode,
  parsePaths,
  snippetPieces,
  statusCounts,
} from "./memory";

export interface MemoryView {
  element: HTMLElement;
  /** Read the embedder and the passages again. */
  refresh(): void;
  /** The view is shown (reads again every 2 s) or hidden (stops). */
  setActive(active: boolean): void;
}

/** How often the passages and statuses are read again while the view is open. */
const POLL_MS = 2000;
/** How many passages the list shows. */
const SHOWN = 100;

export function createMemoryView(t: Translate, lang: Lang, back: () => HTMLButtonElement): MemoryView {
  // ---- Embedder ----
  const embedderState = h("p", { id: "embedder-state", class: "embedder-state" });
  const counts = h("p", { id: "memory-counts", class: "hint" });
  const embedNow = h("button", { id: "memory-embed", type: "button", class: "secondary" }, t("memoryEmbedNow"));
  const embedLine = statusLine("memory-embed-status", t);
  const url = h("input", { id: "embedder-url", type: "url", autocomplete: "off", spellcheck: "false", placeholder: "http://127.0.0.1:11434" });
  const model = h("input", { id: "embedder-model", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "nomic-embed-text" });
  const queryPrefix = h("input", { id: "embedder-query-prefix", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "query: " });
  const passagePrefix = h("input", { id: "embedder-passage-prefix", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "passage: " });
  const inputType = h("input", { id: "embedder-input-type", type: "checkbox" });
  const remote = h("input", { id: "embedder-remote", type: "checkbox" });
  const save = h("button", { id: "embedder-save", type: "submit", class: "primary" }, t("memoryEmbedderSave"));
  const saveLine = statusLine("embedder-status", t);
  const form = h(
    "form",
    { id: "embedder-form", class: "embedder-form" },
    field("embedder-url", t("memoryEmbedderUrl"), url),
    field("embedder-model", t("memoryEmbedderModel"), model),
    field("embedder-query-prefix", t("memoryQueryPrefix"), queryPrefix),
    field("embedder-passage-prefix", t("memoryPassagePrefix"), passagePrefix, t("memoryPrefixHint")),
    h("div", { class: "check" }, inputType, h("label", { for: "embedder-input-type" }, t("memoryInputType"))),
    h("div", { class: "check" }, remote, h("label", { for: "embedder-remote" }, t("memoryEmbedderRemote"))),
    h("div", { class: "row" }, save),
    saveLine.status,
  );
  const edit = h("details", { class: "embedder-edit" }, h("summary", {}, t("memoryEmbedderChange")), form);
  const embedderSection = h(
    "section",
    { id: "memory-embedder", class: "memory-section", "aria-labelledby": "memory-embedder-title" },
    h("h3", { id: "memory-embedder-title" }, t("memoryEmbedderTitle")),
    embedderState,
    counts,
    h("div", { class: "row" }, embedNow),
    embedLine.status,
    edit,
  );

  // ---- Search ----
  const query = h("input", { id: "memory-query", type: "search", autocomplete: "off", spellcheck: "false", placeholder: t("memoryQueryPlaceholder") });
  const mode = h("select", { id: "memory-mode" }, ...SEARCH_MODES.map((m) => h("option", { value: m }, t(modeKey(m)))));
  const sourceFilter = h("select", { id: "memory-source" }, h("option", { value: "" }, t("memoryAllSources")));
  const go = h("button", { id: "memory-search-go", type: "submit", class: "primary" }, t("memorySearch"));
  const note = h("p", { id: "memory-search-note", class: "hint" });
  note.hidden = true;
  const results = h("ol", { id: "memory-results", class: "memory-results" });
  const searchLine = statusLine("memory-search-status", t);
  const searchForm = h(
    "form",
    { id: "memory-search-form", class: "memory-search-form", role: "search" },
    field("memory-query", t("memoryQuery"), query),
    field("memory-mode", t("memoryMode"), mode),
    field("memory-source", t("memorySourceFilter"), sourceFilter),
    h("div", { class: "row" }, go),
  );
  const searchSection = h(
    "section",
    { id: "memory-search", class: "memory-section", "aria-labelledby": "memory-search-title" },
    h("h3", { id: "memory-search-title" }, t("memorySearchTitle")),
    searchForm,
    searchLine.status,
    note,
    results,
  );

  // ---- Passages ----
  const total = h("p", { id: "memory-total", class: "hint" });
  const passageList = h("ul", { id: "passage-list", class: "passage-list" });
  const passagesSection = h(
    "section",
    { id: "memory-passages", class: "memory-section", "aria-labelledby": "memory-passages-title" },
    h("h3", { id: "memory-passages-title" }, t("memoryPassagesTitle")),
    total,
    passageList,
  );

  // ---- Sources ----
  const sourceName = h("input", { id: "source-name", type: "text", autocomplete: "off", placeholder: t("sourceNamePlaceholder") });
  const sourceDescription = h("input", { id: "source-description", type: "text", autocomplete: "off" });
  const sourceCreate = h("button", { id: "source-create", type: "submit", class: "primary" }, t("sourceCreate"));
  const sourceLine = statusLine("source-status", t);
  const sourceForm = h(
    "form",
    { id: "source-form", class: "source-form" },
    field("source-name", t("sourceName"), sourceName),
    field("source-description", t("sourceDescription"), sourceDescription),
    h("div", { class: "row" }, sourceCreate),
    sourceLine.status,
  );
  const sourceList = h("ul", { id: "source-list", class: "source-list" });
  const sourcesSection = h(
    "section",
    { id: "memory-sources", class: "memory-section", "aria-labelledby": "memory-sources-title" },
    h("h3", { id: "memory-sources-title" }, t("memorySourcesTitle")),
    h("p", { class: "hint" }, t("memorySourcesIntro")),
    sourceList,
    sourceForm,
  );

  // The sections and their menu (a new section: one more entry here).
  const sections: [HTMLElement, string][] = [
    [embedderSection, t("memoryEmbedderTitle")],
    [searchSection, t("memorySearchTitle")],
    [sourcesSection, t("memorySourcesTitle")],
    [passagesSection, t("memoryPassagesTitle")],
  ];
  const menu = h(
    "nav",
    { id: "memory-menu", class: "section-menu", "aria-label": t("memoryTitle") },
    ...sections.map(([section, label]) => {
      const b = h("button", { type: "button", class: "secondary", "data-section": section.id }, label);
      b.addEventListener("click", () => section.scrollIntoView({ block: "start" }));
      return b;
    }),
  );
  const element = h(
    "section",
    { id: "memory-view", class: "view memory-view", "aria-labelledby": "memory-title" },
    back(),
    h("h2", { id: "memory-title" }, t("memoryTitle")),
    h("p", { class: "hint" }, t("memoryIntro")),
    menu,
    ...sections.map(([section]) => section),
  );

  // ---- Reading ----
  let embedderSet = true;
  // A file waiting for an embedder: this takes the person to its form.
  const setEmbedderButton = (): HTMLElement => {
    const b = h("button", { type: "button", class: "secondary set-embedder" }, t("sourceSetEmbedder"));
    b.addEventListener("click", () => {
      edit.open = true;
      embedderSection.scrollIntoView({ block: "start", behavior: "instant" });
      url.focus({ preventScroll: true });
    });
    return b;
  };
  let active = false;
  let timer = 0;
  let filled = false;
  const showEmbedder = (e: MemoryEmbedderView): void => {
    const s = e.settings;
    embedderSet = s !== null;
    embedderState.textContent =
      s === null
        ? t("memoryNoEmbedder")
        : t("memoryEmbedderIs", { model: s.model, url: s.base_url, dim: s.dim === null ? "?" : String(s.dim) });
    embedderState.dataset.set = s === null ? "0" : "1";
    counts.textContent = statusCounts(e, t);
    embedNow.disabled = s === null;
    if (!filled && s !== null) {
      filled = true;
      url.value = s.base_url;
      model.value = s.model;
      queryPrefix.value = s.query_prefix;
      passagePrefix.value = s.passage_prefix;
      inputType.checked = s.input_type;
      remote.checked = s.remote;
    }
  };
  const renderPassage = (p: ArchivalPassageView): HTMLElement =>
    h(
      "li",
      { class: "passage", "data-id": p.id, "data-status": p.status },
      h(
        "div",
        { class: "passage-head" },
        h("span", { class: `badge passage-status status-${p.status}` }, t(embedStatusKey(p.status))),
        h("time", { class: "passage-date", datetime: p.created_at }, formatTime(p.created_at, lang)),
        p.tags.length > 0 ? h("span", { class: "passage-tags" }, p.tags.map((tag) => `#${tag}`).join(" ")) : null,
      ),
      h("p", { class: "passage-text" }, p.text.length > 400 ? `${p.text.slice(0, 399)}…` : p.text),
      p.status === "failed"
        ? h(
            "p",
            { class: "passage-error" },
            t("memoryFailedBecause", { error: p.error ?? "?" }) +
              (p.retry_at !== undefined ? " " + t("memoryRetryAt", { time: formatTime(p.retry_at, lang) }) : ""),
          )
        : null,
    );
  const schedule = (): void => {
    window.clearTimeout(timer);
    if (active) timer = window.setTimeout(refresh, POLL_MS);
  };
  function refresh(): void {
    Promise.all([
      request({ type: "memory_embedder" }, "memory_embedder"),
      request({ type: "list_archival", limit: SHOWN }, "archival_passages"),
      readSources(),
    ])
      .then(([{ embedder }, { passages, total: n }]) => {
        showEmbedder(embedder);
        total.textContent = t("memoryTotal", { count: n, shown: passages.length });
        fillList(passageList, passages, t("memoryNoPassages"), renderPassage);
        schedule();
      })
      .catch((e: unknown) => {
        embedLine.fail(e);
        schedule();
      });
  }


  // ---- Sources: one block per source, kept across refreshes (its path
  // box keeps what the user typed); its files are filled again each time.
  interface SourceBlock {
    item: HTMLLIElement;
    counts: HTMLElement;
    description: HTMLElement;
    files: HTMLUListElement;
  }
  const blocks = new Map<string, SourceBlock>();
  const renderFile = (f: SourceFileView): HTMLElement =>
    h(
      "li",
      { class: "source-file", "data-name": f.name, "data-status": f.status },
      h(
        "div",
        { class: "source-file-head" },
        h("span", { class: `badge file-status status-${f.status}` }, t(fileStatusKey(f.status))),
        h("span", { class: "file-name" }, f.name),
        h("span", { class: "file-progress hint" }, fileProgress(f, t)),
      ),
      f.error !== undefined ? h("p", { class: "file-error" }, t("memoryFailedBecause", { error: f.error })) : null,
      // Waiting for an embedder that is not set: said so, with the way to set one.
      f.status === "embedding" && !embedderSet
        ? h("p", { class: "file-note hint file-waits-embedder" }, t("sourceWaitsEmbedder"), " ", setEmbedderButton())
        : f.note !== undefined
          ? h("p", { class: "file-note hint" }, f.note)
          : null,
    );
  const makeBlock = (source: SourceView): SourceBlock => {
    const name = source.name;
    const counts = h("span", { class: "source-counts hint" });
    const description = h("p", { class: "source-description hint" });
    const files = h("ul", { class: "source-files" });
    const paths = h("textarea", {
      class: "source-paths",
      rows: "2",
      spellcheck: "false",
      placeholder: "/home/…/visa.pdf",
      "aria-label": t("sourcePaths"),
    });
    const add = h("button", { type: "submit", class: "secondary source-add" }, t("sourceAdd"));
    const addLine = statusLine(`source-add-status-${source.id}`, t);
    const addForm = h(
      "form",
      { class: "source-add-form" },
      h("label", {}, t("sourcePaths"), paths),
      h("p", { class: "hint" }, t("sourcePathsHint")),
      h("div", { class: "row" }, add),
      // A wrapper: the status line's own classes are replaced as it speaks.
      h("div", { class: "source-add-status" }, addLine.status),
    );
    addForm.addEventListener("submit", (e) => {
      e.preventDefault();
      const list = parsePaths(paths.value);
      if (list.length === 0) {
        addLine.say(t("sourcePathsEmpty"), "error");
        return;
      }
      add.disabled = true;
      addLine.say(t("sourceAdding"), "pending");
      request({ type: "add_to_source", name, paths: list }, "source_files")
        .then((r) => {
          paths.value = "";
          addLine.say(t("sourceAdded", { files: counted(t, "file", list.length) }), "ok");
          fillList(files, r.files, t("sourceNoFiles"), renderFile);
          refresh();
        })
        .catch(addLine.fail)
        .finally(() => {
          add.disabled = false;
        });
    });
    // Deleting takes a second click, on the question that says what goes.
    const del = h("button", { type: "button", class: "secondary source-delete" }, t("sourceDelete"));
    const yes = h("button", { type: "button", class: "danger source-delete-yes" }, t("sourceDeleteYes"));
    const no = h("button", { type: "button", class: "secondary source-delete-no" }, t("sourceDeleteNo"));
    const question = h("p", { class: "source-delete-question" });
    const ask = h("div", { class: "source-delete-ask" }, question, h("div", { class: "row" }, yes, no));
    ask.hidden = true;
    del.addEventListener("click", () => {
      const passages = counts.dataset.passages ?? "0";
      question.textContent = t("sourceDeleteConfirm", { name, passages: counted(t, "passage", Number(passages)) });
      ask.hidden = false;
      del.hidden = true;
    });
    no.addEventListener("click", () => {
      ask.hidden = true;
      del.hidden = false;
    });
    yes.addEventListener("click", () => {
      yes.disabled = true;
      request({ type: "delete_source", name }, "source_deleted")
        .then((r) => {
          sourceLine.say(t("sourceDeleted", { name: r.name, passages: counted(t, "passage", r.passages) }), "ok");
          refresh();
        })
        .catch((e: unknown) => {
          addLine.fail(e);
          ask.hidden = true;
          del.hidden = false;
        })
        .finally(() => {
          yes.disabled = false;
        });
    });
    const item = h(
      "li",
      { class: "source", "data-name": name },
      h("div", { class: "source-head" }, h("strong", { class: "source-name" }, name), counts, del),
      ask,
      description,
      files,
      addForm,
    );
    return { item, counts, description, files };
  };
  const showSources = (sources: SourceView[]): void => {
    const names = new Set(sources.map((x) => x.name));
    for (const [name, block] of blocks) {
      if (!names.has(name)) {
        block.item.remove();
        blocks.delete(name);
      }
    }
    sourceList.querySelector(":scope > li.empty")?.remove();
    let previous: Element | null = null;
    for (const source of sources) {
      let block = blocks.get(source.name);
      if (block === undefined) {
        block = makeBlock(source);
        blocks.set(source.name, block);
      }
      block.counts.textContent = t("sourceCounts", { files: counted(t, "file", source.files), passages: counted(t, "passage", source.passages) });
      block.counts.dataset.passages = String(source.passages);
      block.description.textContent = source.description;
      block.description.hidden = source.description === "";
      // Moved only when out of place: a move would take the focus away.
      const expected: Element | null = previous === null ? sourceList.firstElementChild : previous.nextElementSibling;
      if (expected !== block.item) sourceList.insertBefore(block.item, expected);
      previous = block.item;
    }
    if (sources.length === 0) sourceList.replaceChildren(h("li", { class: "empty" }, t("memoryNoSources")));
    // The search's filter: every source, the choice kept.
    const chosen = sourceFilter.value;
    sourceFilter.replaceChildren(
      h("option", { value: "" }, t("memoryAllSources")),
      ...sources.map((x) => h("option", { value: x.name }, x.name)),
    );
    sourceFilter.value = names.has(chosen) ? chosen : "";
  };
  async function readSources(): Promise<void> {
    const { sources } = await request({ type: "list_sources" }, "sources");
    showSources(sources);
    const lists = await Promise.all(sources.map((x) => request({ type: "source_files", name: x.name }, "source_files")));
    for (const { source, files } of lists) {
      const block = blocks.get(source.name);
      if (block !== undefined) fillList(block.files, files, t("sourceNoFiles"), renderFile);
    }
  }
  sourceForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = sourceName.value.trim();
    if (name === "") {
      sourceLine.say(t("sourceNameEmpty"), "error");
      return;
    }
    sourceCreate.disabled = true;
    request({ type: "create_source", name, description: sourceDescription.value.trim() }, "source")
      .then(({ source }) => {
        sourceLine.say(t("sourceCreated", { name: source.name }), "ok");
        sourceName.value = "";
        sourceDescription.value = "";
        refresh();
      })
      .catch(sourceLine.fail)
      .finally(() => {
        sourceCreate.disabled = false;
      });
  });

  // ---- Actions ----
  embedNow.addEventListener("click", () => {
    embedNow.disabled = true;
    embedLine.say(t("memoryEmbedding"), "pending");
    request({ type: "embed_archival" }, "archival_embedded")
      .then((r) => {
        const said = t("memoryEmbedded", { embedded: r.embedded, failed: r.failed });
        embedLine.say(r.error !== undefined ? `${said} ${t("memoryFailedBecause", { error: r.error })}` : said, r.failed > 0 ? "error" : "ok");
      })
      .catch(embedLine.fail)
      .finally(() => {
        embedNow.disabled = false;
        refresh();
      });
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    save.disabled = true;
    saveLine.say(t("memoryEmbedderTesting"), "pending");
    request(
      {
        type: "set_memory_embedder",
        base_url: url.value.trim(),
        model: model.value.trim(),
        query_prefix: queryPrefix.value,
        passage_prefix: passagePrefix.value,
        input_type: inputType.checked,
        allow_remote: remote.checked,
      },
      "memory_embedder",
    )
      .then(({ embedder }) => {
        saveLine.say(t("memoryEmbedderSaved"), "ok");
        showEmbedder(embedder);
        refresh();
      })
      .catch(saveLine.fail)
      .finally(() => {
        save.disabled = false;
      });
  });
  // One number per hit, a share of the best one's match; the rankings
  // and the raw score in its tooltip.
  let best = 0;
  const renderHit = (hit: ArchivalHitView): HTMLElement =>
    h(
      "li",
      { class: "memory-hit", "data-id": hit.id },
      h(
        "div",
        { class: "hit-head" },
        h(
          "span",
          {
            class: "hit-score",
            title: [t("memoryScoreHint"), t("memoryScore", { score: formatScore(hit.score, lang) }), ...hitReasons(hit, lang, t)].join(" · "),
          },
          t("memoryMatch", { percent: matchPercent(hit, best) }),
        ),
        h("span", { class: "hit-why" }, hitWhy(hit, t)),
      ),
      h("p", { class: "hit-snippet" }, ...snippetPieces(hit.snippet).map((p) => (p.match ? h("mark", {}, p.text) : document.createTextNode(p.text)))),
      originOf(hit),
    );
  const originOf = (hit: ArchivalHitView): HTMLElement | null => {
    const text = hitOrigin(hit, t);
    if (text === null) return null;
    const attrs: Record<string, string> = { class: "hit-origin hint", "data-file": hit.file ?? "" };
    if (hit.page !== undefined) attrs["data-page"] = String(hit.page);
    return h("p", attrs, text);
  };
  searchForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = query.value.trim();
    if (text === "") {
      searchLine.say(t("memoryQueryEmpty"), "error");
      return;
    }
    go.disabled = true;
    searchLine.say(t("memorySearching"), "pending");
    const among = sourceFilter.value;
    request(
      { type: "search_archival", query: text, mode: parseMode(mode.value), limit: 10, ...(among !== "" ? { source: among } : {}) },
      "archival_hits",
    )
      .then(({ hits, note: why }) => {
        searchLine.say(t("memoryFound", { count: hits.length }), "ok");
        note.hidden = why === undefined;
        note.textContent = why ?? "";
        best = Math.max(0, ...hits.map((hit) => hit.score));
        fillList(results, hits, t("memoryNoHits"), renderHit);
      })
      .catch(searchLine.fail)
      .finally(() => {
        go.disabled = false;
      });
  });

  return {
    element,
    refresh,
    setActive(on: boolean): void {
      active = on;
      if (on) refresh();
      else window.clearTimeout(timer);
    },
  };
}
