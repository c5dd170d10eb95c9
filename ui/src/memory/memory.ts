// Pure logic of the Memory view: the passages' statuses as words and
// counts, the embedder as one line, the search modes and a hit's score in
// the user's language, where a hit was read from (source, file, page), the
// sources' files and their progress. The view (memory-view.ts) reads these.

import type { Lang, MessageKey, Translate } from "../i18n";
import type { ArchivalHitView, ArchivalSearchMode, EmbedStatusView, MemoryEmbedderView, SourceFileStatus, SourceFileView } from "../protocol";

/** The search modes, as the select lists them: both fused first. */
export const SEARCH_MODES: readonly ArchivalSearchMode[] = ["both", "words", "meaning"];

export const modeKey = (mode: ArchivalSearchMode): MessageKey => `memoryMode.${mode}`;
export const embedStatusKey = (status: EmbedStatusView): MessageKey => `embedStatus.${status}`;

/** A mode from the select's value (anything else: both). */
export function parseMode(value: string): ArchivalSearchMode {
  return SEARCH_MODES.find((m) => m === value) ?? "both";
}

/** The counts line: "12 done · 3 waiting · 1 failed" (only the non-zero ones; all zero: none). */
export function statusCounts(e: MemoryEmbedderView, t: Translate): string {
  const parts: string[] = [];
  const add = (n: number, key: MessageKey): void => {
    if (n > 0) parts.push(t(key, { count: n }));
  };
  add(e.done, "memoryCount.done");
  add(e.embedding, "memoryCount.embedding");
  add(e.pending, "memoryCount.pending");
  add(e.failed, "memoryCount.failed");
  return parts.length === 0 ? t("memoryCount.none") : parts.join(" · ");
}

/** A number as the language writes it (`0,0312` in Vietnamese). */
export function formatScore(score: number, lang: Lang): string {
  return new Intl.NumberFormat(lang === "vi" ? "vi-VN" : "en-US", { maximumSignificantDigits: 3 }).format(score);
}

/** Why a hit was found: its word rank, its meaning rank and similarity, as the language says them. */
/**
 * How well a hit matches, as a person reads it: its fused score as a share
 * of the best hit's, in whole percent (the best is 100 %). One number per
 * hit; the rankings behind it are in {@link hitReasons}.
 */
export function matchPercent(hit: ArchivalHitView, best: number): number {
  if (!(best > 0) || !(hit.score > 0)) return 0;
  return Math.max(1, Math.min(100, Math.round((hit.score / best) * 100)));
}

/** Why a hit was found, in words (no numbers): by its words, by its meaning, or both. */
export function hitWhy(hit: ArchivalHitView, t: Translate): string {
  const words = hit.word_rank !== undefined;
  const meaning = hit.meaning_rank !== undefined;
  if (words && meaning) return t("memoryWhy.both");
  if (words) return t("memoryWhy.words");
  if (meaning) return t("memoryWhy.meaning");
  return "";
}

/** The rankings behind a hit's match (its tooltip, for who wants them). */
export function hitReasons(hit: ArchivalHitView, lang: Lang, t: Translate): string[] {
  const out: string[] = [];
  if (hit.word_rank !== undefined) out.push(t("memoryHit.words", { rank: hit.word_rank }));
  if (hit.meaning_rank !== undefined) {
    const similarity = hit.similarity !== undefined ? formatScore(hit.similarity, lang) : "?";
    out.push(t("memoryHit.meaning", { rank: hit.meaning_rank, similarity }));
  }
  return out;
}

/** The text a search shows of a hit: its snippet with the `[match]` marks as pieces to highlight. */
export function snippetPieces(snippet: string): { text: string; match: boolean }[] {
  const out: { text: string; match: boolean }[] = [];
  const re = /\[([^\][]*)\]/gu;
  let last = 0;
  for (let m = re.exec(snippet); m !== null; m = re.exec(snippet)) {
    if (m.index > last) out.push({ text: snippet.slice(last, m.index), match: false });
    out.push({ text: m[1] ?? "", match: true });
    last = m.index + m[0].length;
  }
  if (last < snippet.length) out.push({ text: snippet.slice(last), match: false });
  return out;
}

/** A source file's status as the badge says it. */
export const fileStatusKey = (status: SourceFileStatus): MessageKey => `sourceFileStatus.${status}`;

/** The paths typed in the add-files box: one a line, trimmed, blank lines and repeats dropped. */
export function parsePaths(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/u)) {
    const path = line.trim();
    if (path !== "" && !out.includes(path)) out.push(path);
  }
  return out;
}

/** How far a file is, in a few words: "2 pages · 5 passages, 3 embedded". */
export function fileProgress(file: SourceFileView, t: Translate): string {
  const parts: string[] = [];
  if (file.pages !== undefined) parts.push(t("sourceFilePages", { pages: counted(t, "page", file.pages) }));
  if (file.passages > 0) parts.push(t("sourceFilePassages", { passages: counted(t, "passage", file.passages), embedded: file.embedded }));
  return parts.join(" · ");
}

/** "1 file", "3 files" ("3 tệp"): a count with its noun as the language writes it, never "file(s)". */
export function counted(t: Translate, noun: "file" | "passage" | "page", count: number): string {
  return t(count === 1 ? `count.${noun}` : `count.${noun}s`, { count });
}

/** Whether a file may still change (the view keeps reading it). */
export const fileMoving = (file: SourceFileView): boolean =>
  file.status === "pending" || file.status === "extracting" || file.status === "embedding";

/** Where a hit was read from: "Visa Nhật 2026 › visa.pdf, page 2" (none for a passage stored by the agent). */
export function hitOrigin(hit: ArchivalHitView, t: Translate): string | null {
  if (hit.file === undefined) return null;
  const where = t("memoryHit.origin", { source: hit.source ?? "?", file: hit.file });
  return hit.page !== undefined ? `${where}${t("memoryHit.page", { page: hit.page })}` : where;
}
