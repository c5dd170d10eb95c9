// The palette's form for a tool: one control per field of its JSON Schema
// (schema-form.ts), labels in the user's language, required fields marked,
// each field's message under it. VND amounts are shown as 21.490.000 ₫ once
// typed; files are picked from the store. Hooks: #palette-form,
// .form-field[data-field=PATH], its control #pf-PATH (dots as dashes),
// .field-error.

import { h } from "../dom";
import { hasMessage, type Lang, type MessageKey, type Translate } from "../i18n";
import type { JsonObject } from "../protocol";
import {
  buildArguments,
  fieldLabel,
  formatVnd,
  initialRecord,
  parseVnd,
  recordFromArguments,
  type Built,
  type Field,
  type FormErrors,
  type FormRecord,
  type FormValue,
} from "./schema-form";

/** A stored file as files_get lists it. */
export interface StoredFile {
  id: string;
  name: string;
  tags: string[];
}

export interface SchemaForm {
  element: HTMLElement;
  /** The arguments, or the messages shown on the fields. */
  read(): Built;
  /** Fill the form from arguments (the JSON view's). */
  fill(args: JsonObject): void;
  focus(): void;
}

const controlId = (path: string): string => `pf-${path.replace(/\./g, "-")}`;

export function createSchemaForm(fields: Field[], t: Translate, lang: Lang, files: Promise<StoredFile[]>): SchemaForm {
  let record: FormRecord = initialRecord(fields, lang);
  let stored: StoredFile[] | null = null;
  const element = h("div", { id: "palette-form", class: "schema-form" });
  const has = (key: string): boolean => hasMessage(key);
  const label = (f: Field): string => fieldLabel(f.name, t, has);
  const hint = (f: Field): string | null => (f.description !== "" && lang === "en" ? f.description.replace(/`/g, "") : null);

  const wrap = (f: Field, control: HTMLElement, forId: string | null): HTMLElement =>
    h(
      "div",
      { class: `form-field kind-${f.kind}`, "data-field": f.path },
      forId !== null
        ? h("label", { for: forId }, label(f), f.required ? h("span", { class: "required", title: t("paletteRequired") }, " *") : null)
        : h("span", { class: "label" }, label(f), f.required ? h("span", { class: "required", title: t("paletteRequired") }, " *") : null),
      control,
      hint(f) !== null ? h("p", { class: "hint" }, hint(f)) : null,
      h("p", { class: "field-error", role: "alert" }),
    );

  const textInput = (f: Field, rec: FormRecord, type: string): HTMLElement => {
    const id = controlId(f.path);
    const value = rec[f.name];
    const input = h("input", { id, type, autocomplete: "off", spellcheck: "false" });
    input.value = typeof value === "string" ? value : "";
    if (f.required) input.setAttribute("aria-required", "true");
    if (f.kind === "money") {
      input.setAttribute("inputmode", "numeric");
      input.setAttribute("placeholder", "21.490.000 ₫");
      input.addEventListener("blur", () => {
        const n = parseVnd(input.value);
        if (n !== null) {
          input.value = formatVnd(n);
          rec[f.name] = input.value;
        }
      });
    } else if (f.kind === "integer" || f.kind === "number") {
      input.setAttribute("inputmode", f.kind === "integer" ? "numeric" : "decimal");
      if (f.min !== null || f.max !== null) input.setAttribute("placeholder", `${f.min ?? ""}–${f.max ?? ""}`);
    }
    input.addEventListener("input", () => {
      rec[f.name] = input.value;
    });
    return wrap(f, input, id);
  };

  const fileChoice = (f: Field, rec: FormRecord): HTMLElement => {
    const id = controlId(f.path);
    const select = h("select", { id });
    const current = typeof rec[f.name] === "string" ? (rec[f.name] as string) : "";
    const fillOptions = (list: StoredFile[]): void => {
      select.replaceChildren(
        h("option", { value: "" }, list.length === 0 ? t("paletteNoFiles") : t("paletteChooseFile")),
        ...list.map((file) => h("option", { value: file.id }, file.tags.length > 0 ? `${file.name} (${file.tags.join(", ")})` : file.name)),
      );
      select.value = current;
    };
    fillOptions(stored ?? []);
    void files.then((list) => {
      stored = list;
      fillOptions(list);
    });
    select.addEventListener("change", () => {
      rec[f.name] = select.value;
    });
    return wrap(f, select, id);
  };

  const lines = (f: Field, rec: FormRecord): HTMLElement => {
    const id = controlId(f.path);
    const value = Array.isArray(rec[f.name]) ? (rec[f.name] as string[]) : [];
    const area = h("textarea", { id, rows: "3", spellcheck: "false", autocomplete: "off" });
    area.value = value.join("\n");
    const sync = (): void => {
      const typed = area.value.split("\n");
      const picked = [...element.querySelectorAll<HTMLInputElement>(`[data-files-of="${f.path}"]:checked`)].map((c) => c.value);
      rec[f.name] = [...picked, ...typed];
    };
    area.addEventListener("input", sync);
    const body: HTMLElement[] = [area];
    if (f.kind === "files") {
      const box = h("div", { class: "stored-files", "data-files": f.path });
      const draw = (list: StoredFile[]): void => {
        box.replaceChildren(
          ...list.map((file) => {
            const c = h("input", { type: "checkbox", value: file.id, "data-files-of": f.path });
            if (value.includes(file.id)) {
              c.checked = true;
              area.value = value.filter((v) => v !== file.id).join("\n");
            }
            c.addEventListener("change", sync);
            return h("label", { class: "check" }, c, ` ${file.name}`);
          }),
        );
      };
      void files.then(draw);
      body.unshift(box);
    }
    return wrap(f, h("div", { class: "lines" }, ...body), id);
  };

  const choice = (f: Field, rec: FormRecord): HTMLElement => {
    const id = controlId(f.path);
    const select = h("select", { id });
    const options = f.choices.map((c) => h("option", { value: c }, has(`choice.${c}`) ? t(`choice.${c}` as MessageKey) : c));
    if (!f.required || f.default === undefined) select.append(h("option", { value: "" }, t("paletteNone")));
    select.append(...options);
    select.value = typeof rec[f.name] === "string" ? (rec[f.name] as string) : "";
    select.addEventListener("change", () => {
      rec[f.name] = select.value;
    });
    return wrap(f, select, id);
  };

  const check = (f: Field, rec: FormRecord): HTMLElement => {
    const id = controlId(f.path);
    const box = h("input", { id, type: "checkbox" });
    box.checked = rec[f.name] === true;
    box.addEventListener("change", () => {
      rec[f.name] = box.checked;
    });
    return wrap(f, box, id);
  };

  const group = (f: Field, rec: FormRecord): HTMLElement => {
    const inner = (rec[f.name] as FormRecord | undefined) ?? initialRecord(f.fields, lang);
    rec[f.name] = inner;
    return h(
      "fieldset",
      { class: "form-field kind-group", "data-field": f.path },
      h("legend", {}, label(f), f.required ? h("span", { class: "required" }, " *") : null),
      ...f.fields.map((sub) => control(sub, inner)),
      h("p", { class: "field-error", role: "alert" }),
    );
  };

  const groups = (f: Field, rec: FormRecord): HTMLElement => {
    const list = Array.isArray(rec[f.name]) ? (rec[f.name] as FormRecord[]) : [];
    rec[f.name] = list;
    const box = h("fieldset", { class: "form-field kind-groups", "data-field": f.path });
    const draw = (): void => {
      const add = h("button", { type: "button", class: "secondary add-item" }, `+ ${t("paletteAddItem")}`);
      add.addEventListener("click", () => {
        list.push(initialRecord(f.fields, lang));
        draw();
      });
      box.replaceChildren(
        h("legend", {}, label(f), f.required ? h("span", { class: "required" }, " *") : null),
        ...list.map((item, i) => {
          const remove = h("button", { type: "button", class: "secondary remove-item" }, t("paletteRemoveItem"));
          remove.addEventListener("click", () => {
            list.splice(i, 1);
            draw();
          });
          const prefixed = f.fields.map((sub) => ({ ...sub, path: `${f.path}.${i}.${sub.name}` }));
          return h("div", { class: "form-item", "data-item": String(i) }, ...prefixed.map((sub) => control(sub, item)), remove);
        }),
        add,
        h("p", { class: "field-error", role: "alert" }),
      );
    };
    draw();
    return box;
  };

  const control = (f: Field, rec: FormRecord): HTMLElement => {
    switch (f.kind) {
      case "boolean":
        return check(f, rec);
      case "choice":
        return choice(f, rec);
      case "strings":
      case "files":
        return lines(f, rec);
      case "file":
        return fileChoice(f, rec);
      case "group":
        return group(f, rec);
      case "groups":
        return groups(f, rec);
      case "date":
        return textInput(f, rec, "date");
      case "datetime":
        return textInput(f, rec, "datetime-local");
      case "url":
        return textInput(f, rec, "url");
      case "long-text":
      case "json": {
        const id = controlId(f.path);
        const area = h("textarea", { id, rows: f.kind === "json" ? "4" : "3", spellcheck: f.kind === "json" ? "false" : "true" });
        area.value = typeof rec[f.name] === "string" ? (rec[f.name] as string) : "";
        area.addEventListener("input", () => {
          rec[f.name] = area.value;
        });
        return wrap(f, area, id);
      }
      default:
        return textInput(f, rec, "text");
    }
  };

  const render = (): void => {
    element.replaceChildren(...fields.map((f) => control(f, record)));
  };

  const show = (errors: FormErrors): void => {
    for (const box of element.querySelectorAll<HTMLElement>(".form-field")) {
      const message = errors[box.dataset.field ?? ""];
      box.classList.toggle("invalid", message !== undefined);
      const out = box.querySelector<HTMLElement>(":scope > .field-error");
      if (out !== null) out.textContent = message ?? "";
      const input = box.querySelector<HTMLElement>(":scope > input, :scope > select, :scope > textarea, :scope > .lines > textarea");
      if (message !== undefined) input?.setAttribute("aria-invalid", "true");
      else input?.removeAttribute("aria-invalid");
    }
  };

  render();
  return {
    element,
    read() {
      const built = buildArguments(fields, record as Record<string, FormValue>, lang, t);
      show(built.ok ? {} : built.errors);
      if (!built.ok) element.querySelector<HTMLElement>(".invalid input, .invalid select, .invalid textarea")?.focus();
      return built;
    },
    fill(args) {
      record = recordFromArguments(fields, args, lang);
      render();
    },
    focus() {
      element.querySelector<HTMLElement>("input, select, textarea")?.focus();
    },
  };
}
