// Form helpers shared by the settings' sections.

import { h } from "./dom";

/** Empty text as null (serde's None). */
export const orNull = (text: string): string | null => (text.trim() === "" ? null : text.trim());

/** A labelled control, with an optional hint below it. */
export function field(id: string, label: string, control: HTMLElement, hint?: string): HTMLElement {
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    control,
    hint !== undefined ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null,
  );
}
