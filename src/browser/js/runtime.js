// Halley page runtime.
//
// Injected by the Rust side into every page, in an isolated world: the page's
// own scripts cannot see or tamper with it, but it shares the DOM. Evaluating
// this script defines `globalThis.__halley` (idempotent per `version`).
//
// Conventions: every API function takes ONE JSON-able object and returns a
// JSON-able value (except `element`, which returns the Element for CDP).
// Errors are returned, never thrown: {error: {code, message}} with code
// element_not_found | not_interactable | invalid_arguments (internal_error
// for bugs). Same-origin iframes and open shadow roots are handled from the
// top frame's runtime; cross-origin frames are skipped.
(function () {
  'use strict';
  const VERSION = '1.2.0';
  if (globalThis.__halley && globalThis.__halley.version === VERSION) return;

  // ---------------------------------------------------------------- text utils
  const WS = /[\s\u00a0\u200b\u200c\u200d\u2060\ufeff]+/g;
  const clean = (s) => String(s == null ? '' : s).replace(WS, ' ').trim();
  const norm = (s) => clean(s).normalize('NFC').toLowerCase();
  // Diacritics-insensitive form: "Đăng nhập" -> "dang nhap".
  const fold = (s) => norm(s).normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/đ/g, 'd');
  const cut = (s, n) => (s.length > n ? s.slice(0, n - 1).trimEnd() + '…' : s);
  const q = (s) => '"' + s.replace(/"/g, "'") + '"';
  const err = (code, message) => ({ error: { code, message } });
  const num = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

  // ---------------------------------------------------------------- refs
  // Refs are assigned once per element for its whole life (per runtime, i.e.
  // per top-level document; same-origin frames share the counter).
  const S = { seq: 0, byRef: new Map(), refOf: new WeakMap(), baseline: null, last: null };
  function refFor(el) {
    let r = S.refOf.get(el);
    if (!r) {
      r = 'e' + ++S.seq;
      S.refOf.set(el, r);
      S.byRef.set(r, new WeakRef(el));
    }
    return r;
  }
  function pruneRefs() {
    if (S.byRef.size < 5000) return;
    for (const [r, w] of S.byRef) if (!w.deref()) S.byRef.delete(r);
  }

  // ---------------------------------------------------------------- DOM utils
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'base',
    'param', 'source', 'track', 'datalist', 'object', 'embed', 'canvas', 'map', 'audio', 'math']);
  // Composed parent (slot, shadow host), or null at a document root.
  function parentEl(n) {
    if (n.assignedSlot) return n.assignedSlot;
    const p = n.parentNode;
    if (!p) return null;
    if (p.nodeType === 1) return p;
    if (p.nodeType === 11) return p.host || null;
    return null;
  }
  function frameOf(doc) {
    try { const w = doc.defaultView; return (w && w.frameElement) || null; } catch { return null; }
  }
  function frameDoc(f) {
    try { const d = f.contentDocument; return d && d.documentElement ? d : null; } catch { return null; }
  }
  // Children in the composed (rendered) tree.
  // Elements that may host a shadow root (attachShadow's allow list).
  const HOSTS = new Set(['article', 'aside', 'blockquote', 'body', 'div', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
    'header', 'main', 'nav', 'p', 'section', 'span']);
  const mayHost = (tag) => HOSTS.has(tag) || tag.includes('-');
  function kids(el) {
    if (mayHost(el.localName) && el.shadowRoot) return el.shadowRoot.childNodes;
    if (el.localName === 'slot') {
      const a = el.assignedNodes({ flatten: true });
      return a.length ? a : el.childNodes;
    }
    return el.childNodes;
  }
  // Search roots in order: the document, its open shadow roots (recursively),
  // then same-origin iframes (recursively, each with its shadow roots).
  function rootsOf(doc, out) {
    out = out || [];
    const local = [doc];
    for (let i = 0; i < local.length; i++) {
      for (const el of local[i].querySelectorAll('*')) if (el.shadowRoot) local.push(el.shadowRoot);
    }
    out.push(...local);
    for (const r of local) {
      for (const f of r.querySelectorAll('iframe,frame')) { const d = frameDoc(f); if (d) rootsOf(d, out); }
    }
    return out;
  }
  function roots(C) { return C.roots || (C.roots = rootsOf(document)); }
  function qsaAll(C, sel) {
    const out = [];
    for (const r of roots(C)) for (const el of r.querySelectorAll(sel)) out.push(el);
    return out;
  }

  // ---------------------------------------------------------------- visibility
  // One per-call context caches computed styles and visibility info.
  const ctx = () => ({ cs: new Map(), info: new Map(), wins: new Map(), done: new Set(), roots: null });
  function cs(el, C) {
    const i = C.info.get(el);
    if (i && i.s) return i.s;
    let s = C.cs.get(el);
    if (!s) {
      const w = el.ownerDocument.defaultView || window;
      s = w.getComputedStyle(el);
      C.cs.set(el, s);
    }
    return s;
  }
  const RGBA = new Map();
  function rgba(c) {
    let v = RGBA.get(c);
    if (v === undefined) {
      if (RGBA.size > 500) RGBA.clear();
      v = parseRgba(c);
      RGBA.set(c, v);
    }
    return v;
  }
  function parseRgba(c) {
    const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(c || '');
    if (!m) return null;
    let a = m[4] === undefined ? 1 : parseFloat(m[4]);
    if (m[4] && m[4].endsWith('%')) a /= 100;
    return [+m[1], +m[2], +m[3], a];
  }
  const HIDDEN = { hide: true };
  const CANVAS = [255, 255, 255];
  const UNBOUNDED = 1e9;
  // The visibility helper behind snapshot, readText, locate, state...
  // info(el) is computed once per element per call, top-down through the
  // composed tree (slots, shadow hosts, frames), and cached:
  //   hide  - the element and its subtree are invisible (display:none,
  //           aria-hidden, opacity 0, clipped away, far off-screen...)
  //   self  - its own box and text are invisible (visibility:hidden), its
  //           children may still show
  //   khide - its content is clipped to nothing (sr-only boxes)
  //   clip  - the box that clips its descendants (only when content
  //           actually overflows an overflow:hidden ancestor)
  // Geometry (rect) and text colour checks are lazy: they cost the most.
  function info(el, C, p) {
    let i = C.info.get(el);
    if (i) return i;
    i = compute(el, C, p);
    C.info.set(el, i);
    return i;
  }
  function win(doc, C) {
    let w = C.wins.get(doc);
    if (!w) {
      const v = doc.defaultView || window;
      const root = doc.documentElement;
      w = { v, sx: v.scrollX, sy: v.scrollY, rtl: !!root && v.getComputedStyle(root).direction === 'rtl' };
      C.wins.set(doc, w);
    }
    return w;
  }
  function compute(el, C, p) {
    const par = p ? p.el : parentEl(el);
    if (p) { /* the walker knows the composed parent */ } else if (par) {
      p = info(par, C);
      if (par.shadowRoot && !el.assignedSlot && el.parentNode === par) return HIDDEN; // not slotted
    } else {
      const fe = frameOf(el.ownerDocument);
      p = { hide: !!fe && !visible(fe, C), bgc: CANVAS, clip: null, w: el.ownerDocument.defaultView || window };
    }
    if (p.hide || p.khide) return HIDDEN;
    const attrs = el.hasAttributes();
    if (attrs && el.getAttribute('aria-hidden') === 'true') return HIDDEN;
    const tag = el.localName;
    if (tag === 'input' && el.type === 'hidden') return HIDDEN;
    if (par && p.tag === 'details' && !par.open && tag !== 'summary') return HIDDEN;
    const w = p.w;
    const s = w.getComputedStyle(el);
    const display = s.display;
    if (display === 'none') return HIDDEN;
    const op = s.opacity;
    if (op !== '1' && parseFloat(op) < 0.02) return HIDDEN;
    // overflow-x 'visible' implies overflow-y 'visible' (else it computes to auto).
    const pos = s.position, ox0 = display === 'inline' ? 'visible' : s.overflowX;
    const i = { hide: false, self: s.visibility !== 'visible', khide: false, display, pos, el, tag, attrs, p, s, w,
      clip: pos === 'fixed' ? null : p.clip, _ptr: undefined, _row: undefined, _rect: null, _vis: undefined, _th: undefined, _bg: undefined };
    if (display === 'contents') return i;
    if (pos === 'absolute' || pos === 'fixed') {
      const c = s.clip;
      if (c && c.startsWith('rect(')) {
        const m = c.match(/-?[\d.]+/g);
        if (m && m.length === 4 && (m[1] - m[3] <= 1 || m[2] - m[0] <= 1)) return HIDDEN;
      }
      const cp = s.clipPath;
      if (cp !== 'none' && /inset\(\s*(50|100)%|circle\(\s*0(px)?\s*(at|\))|polygon\(\s*0px 0px\s*,\s*0px 0px/.test(cp)) return HIDDEN;
    }
    // Geometry only where it can hide things: positioned boxes, boxes under
    // an overflowing clipper, and clippers themselves.
    if (pos !== 'static' || i.clip) {
      const r = rectOf(i);
      const w = win(el.ownerDocument, C);
      // Nothing at negative document coordinates can ever be scrolled to.
      if (r.bottom + w.sy < -100 || (!w.rtl && (r.right + w.sx < -100 || r.left + w.sx > 10000))) return HIDDEN;
      const c = i.clip;
      if (c && (r.width || r.height) && (r.right <= c.l || r.left >= c.r || r.bottom <= c.t || r.top >= c.b)) return HIDDEN;
    }
    if (ox0 !== 'visible' && tag !== 'body' && tag !== 'html') {
      const ox = ox0, oy = s.overflowY;
      const hx = ox === 'hidden' || ox === 'clip', hy = oy === 'hidden' || oy === 'clip';
      const sx = ox === 'auto' || ox === 'scroll', sy = oy === 'auto' || oy === 'scroll';
      // Scrollable content is reachable: lift the clip on that axis.
      if ((sx || sy) && i.clip) {
        i.clip = { ...i.clip };
        if (sx) { i.clip.l = -UNBOUNDED; i.clip.r = UNBOUNDED; }
        if (sy) { i.clip.t = -UNBOUNDED; i.clip.b = UNBOUNDED; }
      }
      const overX = hx && el.scrollWidth > el.clientWidth + 1, overY = hy && el.scrollHeight > el.clientHeight + 1;
      if (overX || overY) {
        const r = rectOf(i);
        const n = i.clip ? { ...i.clip } : { l: -UNBOUNDED, t: -UNBOUNDED, r: UNBOUNDED, b: UNBOUNDED };
        if (overX) { n.l = Math.max(n.l, r.left); n.r = Math.min(n.r, r.right); }
        if (overY) { n.t = Math.max(n.t, r.top); n.b = Math.min(n.b, r.bottom); }
        i.clip = n;
        if (n.r - n.l < 2 || n.b - n.t < 2) i.khide = true; // sr-only boxes
      }
    }
    return i;
  }
  const ptrOf = (i) => (i._ptr === undefined ? (i._ptr = i.s.cursor === 'pointer') : i._ptr);
  function rectOf(i) {
    if (!i._rect) i._rect = i.display === 'contents' ? new DOMRect(0, 0, 0, 0) : i.el.getBoundingClientRect();
    return i._rect;
  }
  // Effective background colour (null = unknown: images, or out-of-flow
  // boxes that may sit on anything).
  // Background images are only checked when text looks hidden (imageOnPath).
  function bgOf(i) {
    if (i._bg !== undefined) return i._bg;
    const pb = i.p ? (i.p.s ? bgOf(i.p) : i.p.bgc) : CANVAS;
    const s = i.s;
    let bg;
    const c = rgba(s.backgroundColor);
    if (c && c[3] >= 0.95) bg = c;
    else if (c && c[3] > 0 && pb) bg = pb.map((v, k) => v * (1 - c[3]) + c[k] * c[3]);
    else if (i.pos === 'absolute' || i.pos === 'fixed') bg = null;
    else bg = pb;
    i._bg = bg;
    return bg;
  }
  // Does a background image sit between the text and its opaque backdrop?
  function imageOnPath(i) {
    for (let e = i; e && e.s; e = e.p) {
      if (e.s.backgroundImage !== 'none') return true;
      const c = rgba(e.s.backgroundColor);
      if (c && c[3] >= 0.95) return false;
    }
    return false;
  }
  // Is text directly inside this element invisible (tiny font, transparent
  // or background-coloured, indented away, or in a 0x0 box)?
  function textHide(i) {
    if (i._th !== undefined) return i._th;
    const s = i.s;
    let h = false;
    const fc = rgba(s.color);
    if (parseFloat(s.fontSize) < 2 || parseFloat(s.textIndent) < -500) h = true;
    else if (fc && fc[3] < 0.1) h = true;
    else if (fc) {
      const bg = bgOf(i);
      if (bg && Math.abs(fc[0] - bg[0]) + Math.abs(fc[1] - bg[1]) + Math.abs(fc[2] - bg[2]) <= 30 && s.textShadow === 'none' && !imageOnPath(i)) h = true;
    }
    if (!h && i._rect && i._rect.width === 0 && i._rect.height === 0) h = true;
    i._th = h;
    return h;
  }
  // Is the element itself visibly rendered (used by locate and friends)?
  function visible(el, C) {
    const i = info(el, C);
    if (i.hide) return false;
    if (i._vis !== undefined) return i._vis;
    let v = false;
    if (!i.self && !i.khide && i.display !== 'contents') {
      const r = rectOf(i);
      v = r.width > 0 && r.height > 0;
    }
    // display:contents, or an inline box around block children.
    if (!v && !i.self && el.firstElementChild && (i.display === 'contents' || rectOf(i).width === 0)) {
      for (const k of el.children) if (visible(k, C)) { v = true; break; }
    }
    i._vis = v;
    return v;
  }
  function textHidden(t, C) {
    const p = t.assignedSlot || (t.parentNode && (t.parentNode.nodeType === 11 ? t.parentNode.host : t.parentNode));
    if (!p || p.nodeType !== 1) return true;
    const i = info(p, C);
    return i.hide || i.self || i.khide || textHide(i);
  }

  // ---------------------------------------------------------------- roles
  const LANDMARK = { navigation: 'nav', main: 'main', banner: 'header', contentinfo: 'footer',
    complementary: 'aside', form: 'form', dialog: 'dialog', alertdialog: 'dialog', region: 'region', search: 'search' };
  const IROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem', 'listbox']);
  const NAME_FROM_CONTENT = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'heading', 'cell', 'gridcell', 'columnheader', 'rowheader',
    'treeitem', 'tooltip', 'clickable', 'row', 'listitem', 'term', 'definition', 'paragraph', 'caption']);
  const TEXT_TYPES = new Set(['text', 'email', 'tel', 'url', 'password', '']);
  const OWN_KIND = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'color', 'file', 'password']);
  const PREF_SEL = 'button,a,input[type=submit],input[type=button],label,[role=button],summary,option,[role=link],[role=menuitem],[role=tab],[role=option]';
  const INTERACTIVE_CSS = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[contenteditable]:not([contenteditable=false]),' +
    '[role=button],[role=link],[role=checkbox],[role=radio],[role=switch],[role=tab],[role=menuitem],[role=option],' +
    '[role=combobox],[role=textbox],[role=slider],[onclick],[tabindex]:not([tabindex^="-"])';

  const TAG_ROLE = { textarea: 'textbox', option: 'option', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading',
    h5: 'heading', h6: 'heading', nav: 'navigation', main: 'main', aside: 'complementary', form: 'form', search: 'search',
    dialog: 'dialog', table: 'table', tr: 'row', td: 'cell', ul: 'list', ol: 'list', li: 'listitem', summary: 'button',
    progress: 'progressbar', fieldset: 'group', details: 'group', p: 'paragraph' };
  function roleOf(el, tag, attrs) {
    if (attrs === undefined) attrs = el.hasAttributes();
    if (attrs) {
      const r = el.getAttribute('role');
      const explicit = r ? r.trim().split(/\s+/)[0] : '';
      if (explicit && explicit !== 'presentation' && explicit !== 'none' && explicit !== 'generic') return explicit;
    }
    tag = tag || el.localName;
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : '';
      case 'button': return 'button';
      case 'input': {
        const t = el.type;
        if (t === 'button' || t === 'submit' || t === 'reset' || t === 'image') return 'button';
        if (t === 'checkbox' || t === 'radio') return t;
        if (t === 'range') return 'slider';
        if (t === 'number') return 'spinbutton';
        if (t === 'search') return el.hasAttribute('list') ? 'combobox' : 'searchbox';
        if (TEXT_TYPES.has(t)) return el.hasAttribute('list') ? 'combobox' : 'textbox';
        return '';
      }
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'img': return el.getAttribute('alt') === '' ? '' : 'img';
      case 'header': case 'footer':
        return el.parentElement && el.parentElement.closest('article,aside,main,nav,section') ? '' : tag === 'header' ? 'banner' : 'contentinfo';
      case 'section': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : '';
      case 'th': return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
    }
    if (TAG_ROLE[tag]) return TAG_ROLE[tag];
    if (attrs && el.hasAttribute('contenteditable') && el.isContentEditable) return 'textbox';
    return '';
  }
  // What the snapshot calls the element (ARIA role, or the input type when
  // that says more: date, file, password...).
  function kindOf(el, role) {
    if (el.localName === 'input' && OWN_KIND.has(el.type)) return el.type;
    return role || 'clickable';
  }
  function isInteractive(el, role, tag, attrs) {
    tag = tag || el.localName;
    if (tag === 'a' || tag === 'area') return el.hasAttribute('href') || role !== '';
    if (tag === 'button' || tag === 'select' || tag === 'textarea') return true;
    if (tag === 'input') return el.type !== 'hidden';
    if (tag === 'summary') return true;
    if (IROLES.has(role)) return true;
    if (role === 'textbox') return true;
    if (attrs === false) return false;
    if (el.hasAttribute('onclick')) return true;
    const ti = el.getAttribute('tabindex');
    return ti !== null && parseInt(ti, 10) >= 0 && tag !== 'iframe' && !LANDMARK[role];
  }
  function isEditable(el) {
    const tag = el.localName;
    if (tag === 'textarea') return !el.disabled && !el.readOnly;
    if (tag === 'input') {
      return !el.disabled && !el.readOnly && !['checkbox', 'radio', 'file', 'button', 'submit', 'reset', 'image', 'range', 'color', 'hidden'].includes(el.type);
    }
    return !!el.isContentEditable;
  }
  const FORM_TAGS = new Set(['button', 'input', 'select', 'textarea', 'option', 'optgroup', 'fieldset']);
  const isDisabled = (el) => (FORM_TAGS.has(el.localName) && el.matches(':disabled')) || el.getAttribute('aria-disabled') === 'true';

  // ---------------------------------------------------------------- names
  // Visible-ish text content for accessible names (sr-only text included,
  // display:none / visibility:hidden / aria-hidden excluded).
  function contentText(el, C, skip) {
    const f = el.firstChild;
    if (f && !f.nextSibling && f.nodeType === 3 && !el.shadowRoot) return clean(f.data); // the common case
    let out = '';
    const rec = (n) => {
      for (const k of kids(n)) {
        if (out.length > 600) return;
        if (k.nodeType === 3) { out += k.data; continue; }
        if (k.nodeType !== 1 || k === skip) continue;
        const tag = k.localName;
        if (SKIP.has(tag) || tag === 'select' || tag === 'textarea') continue;
        if (k.getAttribute('aria-hidden') === 'true') continue;
        if (tag === 'svg') { const t = k.querySelector('title'); if (t) out += ' ' + t.textContent + ' '; continue; }
        const s = cs(k, C);
        if (s.display === 'none') continue;
        if (tag === 'img') { if (s.visibility === 'visible') out += ' ' + (k.getAttribute('alt') || '') + ' '; continue; }
        if (tag === 'input') {
          if (['button', 'submit', 'reset'].includes(k.type) && s.visibility === 'visible') out += ' ' + k.value + ' ';
          continue;
        }
        if (tag === 'br') { out += ' '; continue; }
        if (s.visibility !== 'visible' && !k.firstElementChild) continue;
        const inline = s.display.startsWith('inline');
        if (!inline) out += ' ';
        rec(k);
        if (!inline) out += ' ';
      }
    };
    rec(el);
    return clean(out);
  }
  function byIds(el, attr, C) {
    const ids = (el.getAttribute(attr) || '').trim();
    if (!ids) return '';
    const root = el.getRootNode();
    const parts = [];
    for (const id of ids.split(/\s+/)) {
      const t = root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id);
      if (t) parts.push(t.getAttribute('aria-label') || contentText(t, C) || clean(t.textContent));
    }
    return clean(parts.join(' '));
  }
  function labelsText(el, C) {
    let labels = null;
    try { labels = el.labels; } catch { /* not labelable */ }
    if (!labels || !labels.length) return '';
    return clean(Array.from(labels, (l) => contentText(l, C, el)).join(' '));
  }
  function nameOf(el, C, role) {
    if (role === undefined) role = roleOf(el);
    let n = byIds(el, 'aria-labelledby', C) || clean(el.getAttribute('aria-label'));
    if (n) return n;
    const tag = el.localName;
    if (tag === 'input') {
      const t = el.type;
      if (t === 'button' || t === 'submit' || t === 'reset') return clean(el.value) || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '');
      if (t === 'image') return clean(el.alt || el.value || el.title) || 'Submit';
      return labelsText(el, C) || clean(el.title) || clean(el.placeholder) || clean(el.getAttribute('aria-placeholder'));
    }
    if (tag === 'select' || tag === 'textarea' || tag === 'meter' || tag === 'progress') {
      return labelsText(el, C) || clean(el.title) || clean(el.getAttribute('placeholder'));
    }
    if (tag === 'img' || tag === 'area') return clean(el.getAttribute('alt')) || clean(el.title);
    if (tag === 'fieldset') { const l = el.querySelector(':scope > legend'); if (l) return contentText(l, C); }
    if (tag === 'table') { const c = el.caption; if (c) return contentText(c, C); }
    if (tag === 'figure') { const c = el.querySelector(':scope > figcaption'); if (c) return contentText(c, C); }
    if (NAME_FROM_CONTENT.has(role || 'clickable') || tag === 'summary' || tag === 'label') {
      n = contentText(el, C);
      if (n) return n;
    }
    if (role === 'textbox' && el.isContentEditable) {
      n = labelsText(el, C) || clean(el.getAttribute('aria-placeholder') || el.getAttribute('data-placeholder') || el.getAttribute('placeholder'));
      if (n) return n;
    }
    return clean(el.title);
  }
  // A short hint for nameless elements: id, test id, class or icon name.
  function hintOf(el) {
    const use = el.querySelector && el.querySelector('use');
    const h = el.id || el.getAttribute('data-testid') || el.getAttribute('name') ||
      (use && (use.getAttribute('href') || use.getAttribute('xlink:href') || '').replace(/^.*#/, '')) ||
      (typeof el.className === 'string' ? el.className.trim().split(/\s+/)[0] : '');
    return h && h.length <= 40 ? h : '';
  }
  function valueOf(el) {
    const tag = el.localName;
    if (tag === 'input') {
      if (el.type === 'password') return el.value ? '••••' : '';
      if (el.type === 'file') return Array.from(el.files || [], (f) => f.name).join(', ');
      if (['checkbox', 'radio', 'button', 'submit', 'reset', 'image'].includes(el.type)) return '';
      return el.value;
    }
    if (tag === 'textarea') return el.value;
    if (tag === 'select') return Array.from(el.selectedOptions, (o) => clean(o.label || o.text)).join(', ');
    if (el.isContentEditable) return clean(el.innerText);
    const r = el.getAttribute('role');
    if (r === 'combobox' || r === 'textbox' || r === 'slider' || r === 'spinbutton') return el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || '';
    return '';
  }
  function checkedOf(el) {
    if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) return el.indeterminate ? 'mixed' : el.checked;
    const a = el.getAttribute('aria-checked');
    if (a === 'true') return true;
    if (a === 'mixed') return 'mixed';
    if (a === 'false') return false;
    return undefined;
  }
  // Element description returned to Rust.
  function desc(el, C) {
    const role = roleOf(el);
    let kind = kindOf(el, role);
    if (kind === 'clickable' && !isInteractive(el, role)) kind = '';
    const d = { ref: refFor(el), tag: el.localName, role: kind, name: cut(nameOf(el, C, role), 120),
      type: el.localName === 'input' ? el.type : el.getAttribute('type') || '', text: cut(contentText(el, C), 80) };
    const v = valueOf(el);
    if (v || ['input', 'textarea', 'select'].includes(d.tag)) d.value = cut(v, 200);
    const c = checkedOf(el);
    if (c !== undefined) d.checked = c;
    return d;
  }
  function shortDesc(el, C) {
    const r = refFor(el), role = roleOf(el);
    const n = cut(nameOf(el, C, role), 50);
    return `[${r}] ${kindOf(el, role)}${n ? ' ' + q(n) : ''}`;
  }

  // ---------------------------------------------------------------- rendering
  // Walks the composed tree and produces lines. mode 'snap' = the snapshot
  // (refs, landmarks, headings, values), 'text' = visible text only.
  function activeEl(start) {
    let a = (start.ownerDocument || start).activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    while (a && (a.localName === 'iframe' || a.localName === 'frame')) { const d = frameDoc(a); a = d && d.activeElement; }
    return a && a.localName !== 'body' ? a : null;
  }
  const INLINE = new Set(['inline', 'inline-block', 'inline-flex', 'inline-grid', 'inline-table', 'ruby', 'contents']);
  const MAX_TEXT = 160;
  const NONSPACE = /[^\s\u00a0\u200b\u200c\u200d\u2060\ufeff]/;
  const SPACE = ' ';
  const NATIVE_I = new Set(['a', 'button', 'input', 'select', 'textarea', 'summary']);
  // Kinds that may share a line; form fields get a line each.
  const INLINE_KINDS = new Set(['link', 'button', 'radio', 'clickable', 'option', 'tab', 'menuitem', 'menuitemradio', 'treeitem']);
  function render(mode, start, C, opt) {
    opt = opt || {};
    const snap = mode === 'snap';
    const R = { lines: [], parts: [], prefix: '', owner: null, block: null, quiet: 0, row: 0, inItem: 0, strike: 0, active: activeEl(start),
      land: [], lastLand: null, tbl: [], refs: [] };

    function push(part) {
      if (!R.parts.length) R.owner = R.block;
      R.parts.push(part);
    }
    // Turns the pending parts into a line (text runs capped, refs never cut).
    function flush(force) {
      if (R.row && !force) { push(' '); return; }
      const parts = R.parts;
      R.parts = [];
      const prefix = R.prefix;
      R.prefix = '';
      if (!parts.length) return;
      const cells = [];
      let cell = [], txt = '', refs = [], keys = [], items = 0, textLen = 0, isRow = false;
      const endText = () => {
        let t = txt.includes('~~') ? txt.replace(/(^| )~~ ?~~(?= |$)/g, '$1') : txt;
        t = t.replace(/ {2,}/g, ' ').trim();
        if (t) { cell.push({ s: snap ? cut(t, MAX_TEXT) : t }); textLen += t.length; }
        txt = '';
      };
      for (const p of parts) {
        if (typeof p === 'string') txt += p;
        else if (p.sep) { endText(); cells.push(cell); cell = []; isRow = true; }
        else { endText(); cell.push({ s: p.s, item: true }); refs.push(p.ref); keys.push(p.key); items++; }
      }
      endText();
      cells.push(cell);
      // Items are separated by two spaces, text by one.
      const join = (c) => c.map((x, k) => (k ? (x.item && c[k - 1].item ? '  ' : ' ') : '') + x.s).join('');
      let line;
      if (isRow) {
        const cs_ = cells.slice(1).map(join);
        if (!cs_.some((c) => c)) return;
        line = (snap ? '| ' + cs_.join(' | ') : cs_.join(' | ')).trimEnd();
      } else {
        line = join(cells[0]);
      }
      if (!line) return;
      emit(prefix + line, { refs, keys, single: items === 1 && textLen === 0 && !prefix && !isRow, owner: R.owner, row: isRow });
    }
    function emit(s, extra) {
      if (snap) {
        const top = R.land[R.land.length - 1] || null;
        if (top !== R.lastLand) {
          R.lastLand = top;
          R.lines.push({ s: top ? top.h : '## body', refs: [], land: true });
        }
      }
      const t = R.tbl[R.tbl.length - 1];
      const line = Object.assign({ s, land: false, ctx: R.lastLand ? R.lastLand.h : null }, extra);
      if (t && line.row) {
        if (t.hdr === null && t.isHdr) t.hdr = s;
        else if (t.hdr) line.th = t.hdr;
      }
      R.lines.push(line);
    }
    // The snapshot item for an interactive element.
    function item(el, role, container) {
      const ref = refFor(el);
      R.refs.push(ref);
      const kind = kindOf(el, role);
      let s = `[${ref}] ${kind}`;
      let name = nameOf(el, C, role);
      const tag = el.localName;
      if (name) s += ' ' + q(cut(name, container ? 60 : 100));
      else { const h = hintOf(el); if (h) s += ` (${h})`; }
      if (tag === 'select') {
        const opts = Array.from(el.options, (o) => clean(o.label || o.text));
        const v = valueOf(el);
        if (v) s += ' = ' + q(cut(v, 80));
        const list = opts.join(', ');
        s += opts.length <= 10 && list.length <= 120 ? ` (options: ${list})` : ` (${opts.length} options)`;
      } else if (kind === 'file') {
        const v = valueOf(el);
        s += v ? ' = ' + q(cut(v, 80)) : ' (no file)';
        if (el.accept) s += ` accept=${cut(el.accept, 40)}`;
        if (el.multiple) s += ' multiple';
      } else {
        const v = role === 'button' || role === 'link' ? '' : valueOf(el);
        if (v) s += ' = ' + q(cut(clean(v), 80));
        else if (!v && (tag === 'input' || tag === 'textarea')) {
          const ph = clean(el.placeholder);
          if (ph && ph !== name) s += ' placeholder=' + q(cut(ph, 40));
        }
      }
      const c = checkedOf(el);
      if (c === true) s += ' checked';
      else if (c === 'mixed') s += ' mixed';
      if (isDisabled(el)) s += ' disabled';
      if (el.required) s += ' required';
      if ((tag === 'input' || tag === 'textarea') && el.readOnly && role !== 'button') s += ' readonly';
      if (role === 'option' && el.selected) s += ' selected';
      // ARIA states, read only when the element has aria-* attributes.
      const names = el.getAttributeNames();
      if (names.some((n) => n.startsWith('aria-'))) {
        const ga = (n) => el.getAttribute('aria-' + n);
        if (ga('required') === 'true' && !el.required) s += ' required';
        if (ga('expanded') === 'true') s += ' expanded';
        else if (ga('expanded') === 'false') s += ' collapsed';
        if (ga('selected') === 'true' && !s.endsWith(' selected')) s += ' selected';
        if (ga('pressed') === 'true') s += ' pressed';
        const cur = ga('current');
        if (cur && cur !== 'false') s += ' current';
        if (ga('invalid') === 'true') s += ' invalid';
      }
      if (el === R.active) s += ' focused';
      if (tag === 'a' && el.hasAttribute('href')) {
        const h = shortHref(el);
        if (h) s += ' → ' + h;
      }
      if (opt.isNew && opt.isNew(ref)) s += ' *new*';
      const field = !INLINE_KINDS.has(kind);
      if (field) flush();
      push({ s, ref, key: tag === 'a' ? el.getAttribute('href') + '\u0000' + name : null });
      if (field) flush();
    }
    function shortHref(el) {
      const raw = (el.getAttribute('href') || '').trim();
      if (!raw || raw.startsWith('#') || /^javascript:/i.test(raw)) return '';
      if (raw[0] === '/' && raw[1] !== '/' && !raw.includes('#') && !raw.includes('..') && !raw.includes('./')) return raw.length <= 60 ? raw : '';
      let u;
      try { u = new URL(raw, el.baseURI); } catch { return ''; }
      const here = el.ownerDocument.location;
      let h;
      if (u.protocol === 'mailto:' || u.protocol === 'tel:') h = u.href;
      else if (u.origin === here.origin) {
        h = u.pathname + u.search;
        if (u.pathname === here.pathname && u.search === here.search) return '';
      } else h = u.host + (u.pathname === '/' ? '' : u.pathname) + u.search;
      return h.length <= 60 ? h : '';
    }
    function landHeader(el, role) {
      const land = LANDMARK[role];
      let label = clean(byIds(el, 'aria-labelledby', C) || el.getAttribute('aria-label'));
      if (!label && land === 'dialog') { const h = el.querySelector('h1,h2,h3,h4,[role=heading]'); if (h) label = contentText(h, C); }
      let h = '## ' + land + (label ? ' ' + q(cut(label, 60)) : '');
      if (!label && land === 'form' && (el.id || el.getAttribute('name'))) h += ' #' + (el.id || el.getAttribute('name'));
      if (land === 'dialog') { try { if (el.matches(':modal') || el.getAttribute('aria-modal') === 'true') h += ' modal'; } catch { /* old engines */ } }
      return h;
    }

    function walkKids(el, i) {
      const tag = i.tag;
      if (tag === 'slot' || (mayHost(tag) && el.shadowRoot)) { for (const k of kids(el)) walk(k, i); return; }
      for (let k = el.firstChild; k; k = k.nextSibling) walk(k, i);
    }
    // pi: the info of n's composed parent.
    function walk(n, pi) {
      const type = n.nodeType;
      if (type === 3) {
        if (R.quiet) return;
        const d = n.data;
        if (!d) return;
        if (!NONSPACE.test(d)) { if (R.parts.length) push(SPACE); return; }
        if (pi ? pi.hide || pi.self || pi.khide || textHide(pi) : textHidden(n, C)) return;
        push(d.replace(WS, ' '));
        return;
      }
      if (type !== 1) return;
      const el = n, tag = el.localName;
      if (SKIP.has(tag)) return;
      const i = info(el, C, pi);
      if (tag === 'svg') { // icons: only as a click target of their own
        if (snap && !i.hide && !R.inItem && i.attrs && isInteractive(el, roleOf(el, tag, true), tag, true) && visible(el, C)) {
          C.done.add(el);
          item(el, roleOf(el, tag, true), false);
        }
        return;
      }
      if (i.hide) return;
      if (i.khide) { if (snap && tag === 'label') label(el, i); return; }
      const block = isBlock(el, i);
      if (tag === 'br') { flush(); return; }
      if (tag === 'iframe' || tag === 'frame') { frame(el, i); return; }
      const role = roleOf(el, tag, i.attrs);
      if (snap) {
        if (LANDMARK[role] && !R.row && (role !== 'form' || el.querySelector('input,select,textarea,button'))) {
          flush(true);
          R.land.push({ h: landHeader(el, role) });
          walkBlock(el, i);
          flush(true);
          R.land.pop();
          return;
        }
        if (!i.self && isInteractive(el, role, tag, i.attrs) && !C.done.has(el)) {
          if (interactive(el, role, i, block)) return;
        } else if (!i.self && !R.inItem && !R.row && tag !== 'label' && ptrOf(i) && !(i.p && i.p.s && ptrOf(i.p)) && visible(el, C)) {
          // cursor:pointer roots are often JS click targets (divs with handlers).
          if (!el.querySelector(INTERACTIVE_CSS)) {
            const t = nameOf(el, C, 'clickable');
            if (t && t.length <= 100) { if (block) flush(); item(el, 'clickable', false); C.done.add(el); if (block) flush(); return; }
          }
        }
        if (tag === 'label') { label(el, i); return; }
        if (tag === 'img' && !R.inItem) {
          const alt = clean(el.getAttribute('alt'));
          if (alt && visible(el, C) && rectOf(i).width >= 100 && rectOf(i).height >= 100) push(` img ${q(cut(alt, 80))} `);
          return;
        }
      } else if (tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'img') return;
      if (role === 'heading' && !R.row) {
        flush(true);
        const lvl = tag[0] === 'h' && tag.length === 2 ? +tag[1] : parseInt(el.getAttribute('aria-level'), 10) || 2;
        walkBlock(el, i);
        R.prefix = snap ? '#'.repeat(lvl) + ' ' : '';
        flush(true);
        return;
      }
      const isTable = tag === 'table' || role === 'table' || role === 'grid' || role === 'treegrid';
      if (isTable && !layoutTable(el)) {
        flush();
        R.tbl.push({ hdr: null, isHdr: false, rows: 0 });
        walkBlock(el, i);
        flush();
        R.tbl.pop();
        return;
      }
      if ((i.display === 'table-row' || role === 'row') && !R.row && R.tbl.length) {
        flush(true);
        const t = R.tbl[R.tbl.length - 1];
        // Header rows: in <thead>, or the first rows made only of header cells.
        t.isHdr = t.hdr === null && t.rows++ < 3 && ((el.parentElement && el.parentElement.localName === 'thead') ||
          (!!el.firstElementChild && Array.prototype.every.call(el.children, (c) => c.localName === 'th' || c.getAttribute('role') === 'columnheader')));
        R.row++;
        walkBlock(el, i);
        R.row--;
        flush(true);
        t.isHdr = false;
        return;
      }
      if (R.row && (i.display === 'table-cell' || role === 'cell' || role === 'gridcell' || role === 'columnheader' || role === 'rowheader')) {
        R.parts.push({ sep: true });
        walkKids(el, i);
        return;
      }
      if (tag === 'dt') { flush(); walkKids(el, i); return; }
      if (tag === 'dd' && !R.row) {
        const prev = el.previousElementSibling;
        if (prev && (prev.localName === 'dt' || prev.localName === 'dd') && R.parts.length) push(prev.localName === 'dt' ? ': ' : '; ');
        else flush();
        walkKids(el, i);
        flush();
        return;
      }
      if (tag === 'details' && !el.open) {
        flush();
        const sum = el.querySelector(':scope > summary');
        if (sum) walk(sum, i);
        flush();
        return;
      }
      if (block) flush();
      // Struck-through text (old prices) is shown as ~~text~~.
      const strike = !R.strike && (tag === 'del' || tag === 's' || tag === 'strike' || (!R.row && i.s.textDecorationLine.includes('line-through')));
      if (strike) { R.strike++; push(' ~~'); }
      walkBlock(el, i);
      if (strike) { R.strike--; push('~~ '); }
      if (block) flush();
      else if (i.display !== 'inline' && i.display !== 'contents') push(SPACE);
    }
    // Block boxes start new lines, except items of a flex row (side by side).
    function isBlock(el, i) {
      if (INLINE.has(i.display)) {
        if (i.display !== 'inline' && i.display !== 'contents') push(SPACE); // inline-block boxes
        return false;
      }
      const pi = i.p;
      if (!pi || !pi.el) return true;
      if (pi.hide || !pi.s || !pi.display.endsWith('flex')) return true;
      if (pi._row === undefined) pi._row = pi.s.flexDirection.startsWith('row');
      if (!pi._row) return true;
      push(' ');
      return false;
    }
    function walkBlock(el, i) {
      const prev = R.block;
      R.block = el;
      walkKids(el, i);
      R.block = prev;
    }
    // Layout tables (a whole page in a cell) are rendered as blocks.
    function layoutTable(el) {
      if (el.localName !== 'table') return false;
      const r = el.getAttribute('role');
      return r === 'presentation' || r === 'none' || !!el.querySelector('table') || (el.rows.length <= 3 && el.textContent.length > 1500);
    }
    // Returns true when fully handled.
    function interactive(el, role, i, block) {
      // Buttons and links with text have a box: skip the costly geometry.
      if (i._vis === undefined && !i.self && i.display !== 'contents' && (i.tag === 'a' || i.tag === 'button')) {
        const f = el.firstChild;
        if (f && f.nodeType === 3 && NONSPACE.test(f.data)) i._vis = true;
      }
      if (!visible(el, C)) return false;
      const generic = !IROLES.has(role) && !NATIVE_I.has(i.tag) && role !== 'textbox';
      const nested = i.tag !== 'select' && i.tag !== 'textarea' && !!el.firstElementChild && !!el.querySelector(INTERACTIVE_CSS);
      if (generic && nested) return false; // wrappers with tabindex/onclick
      C.done.add(el);
      if (block) flush();
      if (!nested && !(generic && contentText(el, C).length > 150)) {
        item(el, role, false);
        if (block) flush();
        return true;
      }
      item(el, role, true);
      flush();
      R.inItem++;
      walkBlock(el, i);
      R.inItem--;
      flush();
      return true;
    }
    // <label>: a proxy for its visually hidden custom checkbox/radio/file
    // input, or quiet (its text is the visible control's name).
    function label(el, i) {
      let ctrl = null;
      try { ctrl = el.control; } catch { /* detached */ }
      if (ctrl && !C.done.has(ctrl) && ctrl.localName === 'input' && ['checkbox', 'radio', 'file'].includes(ctrl.type) && !visible(ctrl, C)) {
        if (i.khide || !visible(el, C)) return;
        C.done.add(ctrl);
        item(ctrl, roleOf(ctrl), false);
        R.quiet++;
        walkKids(el, i);
        R.quiet--;
        return;
      }
      if (i.khide) return;
      const quiet = ctrl && !ctrl.hasAttribute('aria-label') && !ctrl.hasAttribute('aria-labelledby') && visible(ctrl, C);
      const block = !INLINE.has(i.display);
      if (block) flush();
      if (quiet) R.quiet++;
      walkBlock(el, i);
      if (quiet) R.quiet--;
      if (block) flush();
    }
    function frame(el, i) {
      if (!visible(el, C)) return;
      const d = frameDoc(el);
      const title = clean(el.title || el.getAttribute('aria-label') || el.name || '');
      if (!d) {
        if (snap && rectOf(i).width > 20 && rectOf(i).height > 20) {
          flush(true);
          let host = '';
          try { host = new URL(el.src, el.baseURI).host; } catch { /* no src */ }
          emit(`## iframe${title ? ' ' + q(cut(title, 60)) : ''} (cross-origin${host ? ': ' + host : ''}, not shown)`, { refs: [] });
        }
        return;
      }
      flush(true);
      if (snap) R.land.push({ h: `## iframe ${q(cut(title || clean(d.title) || 'frame', 60))}` });
      if (d.body) walk(d.body);
      flush(true);
      if (snap) R.land.pop();
    }

    walk(start);
    flush(true);
    return R;
  }

  // Merges short runs of single link/button/radio lines from sibling blocks,
  // and drops a lone link line when the next line has the same link (same
  // href and name: the thumbnail + title pattern of product cards).
  const MERGE_KINDS = /^\[e\d+\] (link|button|radio|tab|menuitem|option|clickable|switch)\b/;
  function mergeRuns(lines) {
    const out = [];
    for (let k = 0; k < lines.length; k++) {
      const l = lines[k], nx = lines[k + 1];
      if (l.single && l.keys && l.keys[0] && nx && nx.keys && nx.keys.includes(l.keys[0]) && !l.s.includes('*new*')) continue;
      const prev = out[out.length - 1];
      if (prev && prev.single && l.single && MERGE_KINDS.test(l.s) && MERGE_KINDS.test(prev.last || prev.s) &&
        prev.s.length + l.s.length < 200 && prev.ctx === l.ctx && prev.owner && l.owner &&
        (prev.owner === l.owner || prev.owner.parentNode === l.owner.parentNode)) {
        prev.s += '  ' + l.s;
        prev.refs = prev.refs.concat(l.refs);
        prev.last = l.s;
        prev.owner = l.owner;
        continue;
      }
      out.push(Object.assign({}, l));
    }
    return out;
  }

  // ---------------------------------------------------------------- targets
  function asTarget(a) {
    if (!a || typeof a !== 'object') return null;
    if (a.target && typeof a.target === 'object') return a.target;
    if (typeof a.target === 'string') return { selector: a.target };
    if (a.ref || a.selector) return a;
    return null;
  }
  // Resolves a target to {el, matches} or {error}.
  function resolve(t, C) {
    if (!t || typeof t !== 'object') return err('invalid_arguments', 'a target {ref} or {selector} is required');
    if (t.ref) {
      const ref = String(t.ref).replace(/^\[|\]$/g, '').replace(/^ref=/, '');
      const w = S.byRef.get(ref);
      const el = w && w.deref();
      if (el && el.isConnected) return { el, matches: 1 };
      if (!/^e\d+$/.test(ref)) return err('invalid_arguments', `\`${ref}\` is not a ref (refs look like e12)`);
      return err('element_not_found', w ? `ref ${ref} is stale: the element was removed or replaced (the page changed). Take a new browser_snapshot and use the new ref.`
        : `unknown ref ${ref} in this page (refs are per page load). Take a new browser_snapshot.`);
    }
    const sel = typeof t.selector === 'string' ? t.selector.trim() : '';
    if (!sel) return err('invalid_arguments', 'target needs `ref` (from browser_snapshot) or `selector` (CSS, text=..., role=...)');
    let rs = roots(C);
    if (t.frame) {
      let f = null;
      try { f = qsaAll(C, String(t.frame)).find((x) => x.localName === 'iframe' || x.localName === 'frame'); } catch {
        return err('invalid_arguments', `invalid frame selector \`${t.frame}\``);
      }
      if (!f) return err('element_not_found', `no iframe matches frame \`${t.frame}\``);
      const d = frameDoc(f);
      if (!d) return err('element_not_found', `iframe \`${t.frame}\` is cross-origin; its content cannot be reached from the page runtime`);
      rs = rootsOf(d);
    }
    let cands;
    if (/^text=/i.test(sel)) {
      let v = sel.slice(5).trim();
      const exact = /^(["']).*\1$/.test(v) && v.length >= 2;
      if (exact) v = v.slice(1, -1);
      if (!v) return err('invalid_arguments', 'empty text= selector');
      cands = textCands(rs, v, exact, C);
    } else if (/^role=/i.test(sel)) {
      const p = parseRole(sel.slice(5));
      if (p.error) return p;
      cands = roleCands(rs, p, C);
    } else if (/^(xpath=|\/\/|\(\/\/)/.test(sel)) {
      const x = sel.replace(/^xpath=/, '');
      cands = [];
      try {
        for (const r of rs) {
          if (r.nodeType !== 9) continue;
          const it = r.evaluate(x, r, null, 7, null);
          for (let k = 0; k < it.snapshotLength; k++) if (it.snapshotItem(k).nodeType === 1) cands.push(it.snapshotItem(k));
        }
      } catch (e) { return err('invalid_arguments', `invalid XPath \`${x}\`: ${e.message}`); }
    } else {
      const css = sel.replace(/^css=/, '');
      cands = [];
      try { for (const r of rs) for (const el of r.querySelectorAll(css)) cands.push(el); } catch {
        return err('invalid_arguments', `invalid CSS selector \`${css}\`. Use a ref from browser_snapshot, text=Label, role=button[name="..."] or valid CSS.`);
      }
    }
    if (!cands.length) return err('element_not_found', `no element matches \`${sel}\`${t.frame ? ` in frame \`${t.frame}\`` : ''}; ${suggest(sel, C)}`);
    const vis = cands.filter((el) => visible(el, C));
    return { el: (vis[0] || cands[0]), matches: cands.length };
  }
  // text=: the deepest elements containing the text, mapped to their
  // interactive ancestor; interactive and visible ones first.
  function textCands(rs, v, exact, C) {
    for (const f of [norm, fold]) {
      const qv = f(v), out = [];
      for (const r of rs) {
        const start = r.nodeType === 9 ? r.body || r.documentElement : r;
        if (!start) continue;
        // Prunes subtrees without the text; keeps the deepest matches.
        const rec = (el) => {
          const before = out.length;
          for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
            if (SKIP.has(c.localName)) continue;
            const t = f(c.textContent);
            if (!t.includes(qv)) continue;
            if (!rec(c) && (!exact || t === qv)) out.push(c);
          }
          return out.length > before;
        };
        rec(start);
        for (const b of r.querySelectorAll('input[type=submit],input[type=button],input[type=reset]')) {
          const t = f(b.value);
          if (exact ? t === qv : t.includes(qv)) out.push(b);
        }
      }
      if (!out.length) continue;
      const seen = new Set(), mapped = [];
      for (const el of out) {
        const m = el.closest(PREF_SEL) || el;
        if (!seen.has(m)) { seen.add(m); mapped.push(m); }
      }
      const score = (el) => (visible(el, C) ? 2 : 0) + (el.matches(PREF_SEL) ? 1 : 0);
      const sc = new Map(mapped.map((el) => [el, score(el)]));
      return mapped.map((el, k) => [el, k]).sort((a, b) => sc.get(b[0]) - sc.get(a[0]) || a[1] - b[1]).map((x) => x[0]);
    }
    return [];
  }
  function parseRole(s) {
    const m = /^\s*([a-zA-Z]+)\s*/.exec(s);
    if (!m) return err('invalid_arguments', 'role selector must look like role=button[name="Thêm vào giỏ"]');
    const p = { role: m[1].toLowerCase(), name: null, level: null };
    const re = /\[\s*([a-zA-Z-]+)\s*(?:=\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^\]\s]*)))?\s*[is]?\s*\]\s*/y;
    re.lastIndex = m[0].length;
    while (re.lastIndex < s.length) {
      const a = re.exec(s);
      if (!a) return err('invalid_arguments', `cannot parse role selector \`role=${s}\`; expected role=button[name="..."]`);
      const val = a[2] !== undefined ? a[2] : a[3] !== undefined ? a[3] : a[4];
      if (a[1] === 'name') p.name = (val || '').replace(/\\(.)/g, '$1');
      else if (a[1] === 'level') p.level = parseInt(val, 10);
    }
    return p;
  }
  function roleCands(rs, p, C) {
    const family = { textbox: ['textbox', 'searchbox'], button: ['button'], img: ['img', 'image'] }[p.role] || [p.role];
    const all = [];
    for (const r of rs) {
      for (const el of r.querySelectorAll('*')) {
        let role = roleOf(el);
        if (p.role === 'textbox' && el.localName === 'input' && el.type === 'password') role = 'textbox';
        // The snapshot's own kinds (date, file, color...) work as roles too.
        if (!family.includes(role) && !family.includes(kindOf(el, role))) continue;
        if (p.level && role === 'heading') {
          const lvl = /^h[1-6]$/.test(el.localName) ? +el.localName[1] : parseInt(el.getAttribute('aria-level'), 10);
          if (lvl !== p.level) continue;
        }
        all.push(el);
      }
    }
    if (p.name === null) return all;
    const names = all.map((el) => nameOf(el, C));
    for (const f of [norm, fold]) {
      const qv = f(p.name);
      const nn = names.map(f);
      let out = all.filter((el, k) => nn[k] === qv);
      if (!out.length) out = all.filter((el, k) => nn[k].includes(qv));
      if (out.length) return out;
    }
    return [];
  }
  // Helpful "did you mean" text for not-found errors.
  function suggest(sel, C) {
    const words = fold(sel.replace(/^(text|role|css)=/i, '').replace(/[[\]"'=]/g, ' ')).split(' ').filter((w) => w.length > 1);
    const els = qsaAll(C, 'a[href],button,input:not([type=hidden]),select,textarea,[role=button],[role=link],[role=tab],[role=menuitem],[role=checkbox],[role=radio],summary')
      .filter((el) => visible(el, C));
    if (!els.length) return 'the page has no visible interactive elements (it may still be loading)';
    const counts = {};
    const scored = els.map((el, k) => {
      const role = roleOf(el) || el.localName;
      counts[role] = (counts[role] || 0) + 1;
      const n = fold(nameOf(el, C, roleOf(el)));
      return { el, k, s: words.filter((w) => n.includes(w)).length };
    });
    const summary = Object.entries(counts).sort((a, b) => b[1] - a[1]).slice(0, 4).map(([r, c]) => `${c} ${r}${c > 1 ? 's' : ''}`).join(', ');
    const close = scored.filter((x) => x.s > 0).sort((a, b) => b.s - a.s || a.k - b.k).slice(0, 8);
    const pick = close.length ? close : scored.filter((x) => ['button', 'link'].includes(roleOf(x.el))).slice(0, 10);
    return `${close.length ? 'similar' : 'visible'}: ${pick.map((x) => shortDesc(x.el, C)).join(', ')} (${summary} on the page). Prefer refs from browser_snapshot.`;
  }

  // ---------------------------------------------------------------- geometry
  function scrollTo(el) {
    try { el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' }); } catch { el.scrollIntoView(); }
  }
  // Offset of an element's document inside the top-level viewport.
  function frameOffset(doc, C) {
    let x = 0, y = 0, d = doc;
    for (let fe = frameOf(d); fe; fe = frameOf(d)) {
      const r = fe.getBoundingClientRect(), s = cs(fe, C);
      x += r.left + fe.clientLeft + parseFloat(s.paddingLeft);
      y += r.top + fe.clientTop + parseFloat(s.paddingTop);
      d = fe.ownerDocument;
    }
    return { x, y };
  }
  function topRect(el, C) {
    let r = el.getBoundingClientRect();
    const rects = el.getClientRects();
    if (rects.length > 1) { // wrapped inline: use the biggest fragment
      let best = rects[0];
      for (const x of rects) if (x.width * x.height > best.width * best.height) best = x;
      r = best;
    }
    const o = frameOffset(el.ownerDocument, C);
    return { x: r.left + o.x, y: r.top + o.y, width: r.width, height: r.height, lx: r.left, ly: r.top };
  }
  // Hit test at the centre, through frames: true when the element (or its
  // descendant, or its label) receives the click.
  function hitTest(el, r, C) {
    let cx = r.lx + r.width / 2, cy = r.ly + r.height / 2;
    const root = el.getRootNode();
    const h = (root.elementFromPoint ? root : el.ownerDocument).elementFromPoint(cx, cy);
    let ok = !!h && (h === el || el.contains(h) || (h.localName === 'label' && h.control === el) ||
      (!!h.closest && !!h.closest('label') && h.closest('label').control === el));
    if (ok) { // the frame chain must not be covered either
      for (let d = el.ownerDocument, fe = frameOf(d); fe && ok; d = fe.ownerDocument, fe = frameOf(d)) {
        const fr = fe.getBoundingClientRect(), s = cs(fe, C);
        cx += fr.left + fe.clientLeft + parseFloat(s.paddingLeft);
        cy += fr.top + fe.clientTop + parseFloat(s.paddingTop);
        ok = fe.ownerDocument.elementFromPoint(cx, cy) === fe;
      }
    }
    return { hit: ok, by: h };
  }
  function formOf(el) {
    const f = el.form || (el.closest && el.closest('form'));
    if (!f) return null;
    const fa = el.getAttribute && el.getAttribute('formaction');
    let action = fa || f.getAttribute('action') || '';
    try { action = new URL(action, el.baseURI).href; } catch { /* keep raw */ }
    return { action, method: (el.getAttribute('formmethod') || f.getAttribute('method') || 'get').toLowerCase(), id: f.id || f.getAttribute('name') || null };
  }
  function elDesc(el, C) {
    let s = el.localName + (el.id ? '#' + el.id : '');
    if (typeof el.className === 'string' && el.className.trim()) s += '.' + el.className.trim().split(/\s+/).slice(0, 2).join('.');
    const t = cut(C ? contentText(el, C) : clean(el.textContent), 40);
    return t ? `${s} ${q(t)}` : s;
  }

  // ---------------------------------------------------------------- API
  function locate(a) {
    const t = asTarget(a);
    if (!t) return err('invalid_arguments', 'locate needs {target: {ref} | {selector}}');
    let C = ctx();
    const r = resolve(t, C);
    if (r.error) return r;
    const el = r.el;
    if (a.scroll !== false) { scrollTo(el); C = ctx(); }
    const rect = topRect(el, C);
    const vis = visible(el, C);
    const h = vis && rect.width > 0 ? hitTest(el, rect, C) : { hit: false, by: null };
    const out = { element: desc(el, C), rect: { x: rect.x, y: rect.y, width: rect.width, height: rect.height },
      visible: vis, enabled: !isDisabled(el), editable: isEditable(el), hit: h.hit, matches: r.matches, form: formOf(el) };
    if (vis && !h.hit && h.by) out.hit_by = S.refOf.has(h.by) || isInteractive(h.by, roleOf(h.by)) ? shortDesc(h.by, C) : elDesc(h.by, C);
    return out;
  }

  // ---------------------------------------------------------------- the press
  // The press lands where the gate looked (issue 42, item 6). Between the
  // cover check and the press the page may slide something over the
  // element (a nearly invisible frame of another site, a transparent
  // link). Right before the press `pressArm` hit-tests the press point
  // again and arms a guard in every document the runtime reaches: a
  // trusted pointer event of the press whose target is not the element
  // (or its label) is cancelled there, and what the press really landed
  // on is reported (`pressDown`, `pressEnd`), so that the Rust side never
  // releases a press that went elsewhere.
  const PRESS_EVENTS = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick', 'contextmenu'];
  // The guard stays armed no longer than this, whatever happens to the call.
  const PRESS_ARMED_MS = 10000;
  const P = { armed: null, wins: new WeakSet() };
  // What a real press at (x, y) (top-level CSS pixels) hits now: the
  // deepest element through same-origin frames and open shadow roots; a
  // frame whose document cannot be read (another origin) is where it stops,
  // as is `stop` (a frame that is itself the element pressed).
  function pointAt(x, y, stop) {
    let doc = document, px = x, py = y;
    for (let depth = 0; depth < 16; depth++) {
      let h = doc.elementFromPoint(px, py);
      if (!h) return { el: null };
      for (let k = 0; k < 16 && h.shadowRoot; k++) {
        const inner = h.shadowRoot.elementFromPoint(px, py);
        if (!inner || inner === h) break;
        h = inner;
      }
      if (h === stop || (h.localName !== 'iframe' && h.localName !== 'frame')) return { el: h };
      const d = frameDoc(h);
      if (!d) return { el: h, foreign: true };
      const r = h.getBoundingClientRect(), st = (h.ownerDocument.defaultView || window).getComputedStyle(h);
      px -= r.left + h.clientLeft + parseFloat(st.paddingLeft);
      py -= r.top + h.clientTop + parseFloat(st.paddingTop);
      doc = d;
    }
    return { el: null };
  }
  // Does a press on `n` press `el`: `n` is `el` or inside it (through
  // shadow roots and frames), or a label of `el`, or the control of the
  // label `el` is (a click on a label clicks its control).
  // An element that does something of its own when clicked; inside a
  // link or a button (where HTML allows none), one is another click.
  const ACTIVATES = 'a[href],area[href],button,input,select,textarea,summary,label,[role=button]';
  const upward = (a) => {
    const p = parentEl(a);
    if (p) return p;
    const root = a.getRootNode ? a.getRootNode() : null;
    return root && root.nodeType === 9 ? frameOf(root) : root && root.host ? root.host : null;
  };
  function pressable(el, n) {
    if (!n || !el) return false;
    const own = el.matches && el.matches(ACTIVATES);
    for (let a = n, k = 0; a && k < 10000; a = upward(a), k++) {
      if (a === el) return true;
      // A link laid inside "Tìm kiếm" takes the click from it.
      if (own && a.matches && a.matches(ACTIVATES) && !(a.localName === 'label' && a.control === el)) break;
    }
    const lab = n.closest ? n.closest('label') : null;
    if (lab && lab.control === el) return true;
    const mine = el.localName === 'label' ? el : el.closest ? el.closest('label') : null;
    return !!(mine && mine.control && mine.control === n);
  }
  function pressDesc(h, foreign) {
    if (!h) return 'nothing';
    if (h.localName === 'iframe' || h.localName === 'frame') {
      let where = '';
      try { const u = new URL(h.src || h.getAttribute('src') || '', h.baseURI); where = u.protocol.startsWith('http') ? u.host : u.protocol.replace(':', ''); } catch { /* none */ }
      const same = !foreign && frameDoc(h);
      return `an iframe${where ? ' of ' + where : ''} (${same ? 'a frame of the page' : 'another site or origin'}${parseFloat(cs(h, ctx()).opacity) < 0.1 ? ', nearly invisible' : ''})`;
    }
    const C = ctx();
    let d = S.refOf.has(h) || isInteractive(h, roleOf(h)) ? shortDesc(h, C) : elDesc(h, C);
    const a = h.closest && h.closest('a[href]');
    if (a) d += ` (a link to ${cut(a.href, 120)})`;
    if (h.ownerDocument !== document) d += ' in a frame';
    let op = 1;
    for (let e = h, k = 0; e && e.nodeType === 1 && k < 10000; e = upward(e), k++) op *= parseFloat(cs(e, C).opacity) || 0;
    if (op < 0.1) d += ', nearly invisible';
    return d;
  }
  function onPress(e) {
    const a = P.armed;
    if (!a || !e.isTrusted || Date.now() > a.until) return;
    if (e.pointerType && e.pointerType !== 'mouse') return;
    const t = (e.composedPath && e.composedPath()[0]) || e.target;
    const ok = t && t.nodeType === 1 && pressable(a.el, t);
    const down = e.type === 'pointerdown' || e.type === 'mousedown';
    if (down) a.down = a.down === 'stray' ? 'stray' : ok ? 'hit' : 'stray';
    if (ok) { if (e.type === 'click' || e.type === 'auxclick') a.clicked = true; return; }
    if (!a.by) a.by = pressDesc(t && t.nodeType === 1 ? t : null);
    if (!down) a.strayed = a.strayed || e.type;
    e.preventDefault();
    e.stopImmediatePropagation();
  }
  function pressGuard() {
    for (const r of rootsOf(document)) {
      if (r.nodeType !== 9 || !r.defaultView || P.wins.has(r.defaultView)) continue;
      const w = r.defaultView;
      P.wins.add(w);
      for (const type of PRESS_EVENTS) w.addEventListener(type, onPress, { capture: true });
    }
  }
  function pressArm(a) {
    const t = asTarget(a);
    if (!t) return err('invalid_arguments', 'pressArm needs {target, x, y}');
    const C = ctx();
    const r = resolve(t, C);
    if (r.error) return r;
    const el = r.el;
    P.armed = null;
    const at = pointAt(+a.x, +a.y, el);
    if (pressable(el, at.el)) {
      pressGuard();
      P.armed = { el, until: Date.now() + PRESS_ARMED_MS, down: null, by: null, strayed: null, clicked: false };
      return { ok: true };
    }
    const out = { ok: false, by: pressDesc(at.el, at.foreign) };
    // The element itself moved (a layout shift): press it where it is now.
    const rect = topRect(el, C);
    if (rect.width > 0 && rect.height > 0) {
      const x = rect.x + rect.width / 2, y = rect.y + rect.height / 2;
      if ((Math.abs(x - a.x) > 1 || Math.abs(y - a.y) > 1) && pressable(el, pointAt(x, y, el).el)) out.retry = { x, y };
    }
    return out;
  }
  // After the button went down: where it went. `hit` (the element took it),
  // `stray` (an element the guard reaches took it, and it was cancelled) or
  // null (nothing the guard reaches saw it: another frame took it).
  function pressDown(a) {
    const g = P.armed;
    if (!g) return { down: null, gone: true };
    const out = { down: g.down, by: g.by };
    if (g.down === null) {
      const el = g.el, at = pointAt(+a.x, +a.y, el);
      // A frame pressed on purpose takes the press in its own document.
      if ((el.localName === 'iframe' || el.localName === 'frame') && at.el === el) out.down = 'hit';
      else if (!pressable(el, at.el)) out.by = pressDesc(at.el, at.foreign);
      else out.by = framesAway();
    }
    g.down = null;
    return out;
  }
  // Another frame took the press and has left the point since (a frame
  // flapping in and out): name the page's frames of other sites, what it
  // can have been.
  function framesAway() {
    const seen = [];
    for (const r of rootsOf(document)) {
      for (const f of r.querySelectorAll('iframe,frame')) if (!frameDoc(f)) seen.push(pressDesc(f, true));
    }
    const named = [...new Set(seen)].slice(0, 3);
    return named.length ? `another frame, gone from under the pointer when it was checked (this page's frames of other sites: ${named.join('; ')})` : null;
  }
  function pressEnd(a) {
    const g = P.armed;
    P.armed = null;
    // Another document: the click navigated (what a link does).
    if (!g) return { gone: true, clicked: false, strayed: null, by: null };
    if (!g.clicked && !g.strayed && a.x !== undefined) {
      // No click at all: what lies under the pointer now took the release.
      const at = pointAt(+a.x, +a.y, g.el);
      if (!pressable(g.el, at.el)) g.by = pressDesc(at.el, at.foreign);
    }
    // A release diverted after the click reached the element is no harm
    // (a link put inside it at pointerdown took the mouseup, not the click).
    const strayed = g.clicked ? null : g.strayed;
    return { clicked: g.clicked, strayed, by: g.clicked ? null : g.by };
  }

  function focus(a) {
    const t = asTarget(a);
    if (!t) return err('invalid_arguments', 'focus needs {target}');
    const C = ctx();
    const r = resolve(t, C);
    if (r.error) return r;
    const el = r.el;
    if (!isEditable(el)) {
      return err('not_interactable', `${shortDesc(el, C)} is not editable${isDisabled(el) ? ' (disabled)' : el.readOnly ? ' (readonly)' : ''}; use browser_click for buttons/links, browser_select_option for <select>, browser_check for checkboxes`);
    }
    scrollTo(el);
    const doc = el.ownerDocument;
    // Already focused (the user may have selected text in it, e.g. with
    // Ctrl+A): keep the caret and selection where they are.
    let active = doc.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
    if (active === el && !a.clear) return desc(el, C);
    el.focus({ preventScroll: true });
    if (el.localName === 'input' || el.localName === 'textarea') {
      if (a.clear) {
        try { el.select(); } catch { /* some types */ }
        const proto = el.localName === 'input' ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
        Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, '');
        el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      } else {
        try { el.setSelectionRange(el.value.length, el.value.length); } catch { /* email/number */ }
      }
    } else {
      const sel = doc.getSelection(), range = doc.createRange();
      range.selectNodeContents(el);
      if (!a.clear) range.collapse(false);
      sel.removeAllRanges();
      sel.addRange(range);
      if (a.clear) {
        try { doc.execCommand('delete'); } catch { /* ignore */ }
        if (clean(el.textContent)) {
          el.textContent = '';
          el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        }
      }
    }
    return desc(el, C);
  }

  function select(a) {
    const t = asTarget(a);
    if (!t) return err('invalid_arguments', 'select needs {target, value | label}');
    const C = ctx();
    const r = resolve(t, C);
    if (r.error) return r;
    let el = r.el;
    if (el.localName === 'label' && el.control) el = el.control;
    if (el.localName !== 'select') {
      const inner = el.querySelector && el.querySelector('select');
      if (inner) el = inner;
      else {
        const role = roleOf(el);
        const custom = role === 'combobox' || role === 'listbox' || el.hasAttribute('aria-haspopup');
        return err('not_interactable', `${shortDesc(el, C)} is not a native <select>${custom ? ' but a custom dropdown' : ''}: click it (browser_click), then take a snapshot and click the option you want`);
      }
    }
    if (isDisabled(el)) return err('not_interactable', `${shortDesc(el, C)} is disabled`);
    const wanted = [].concat(a.value !== undefined && a.value !== null ? a.value : a.label !== undefined && a.label !== null ? a.label : []);
    if (!wanted.length) return err('invalid_arguments', 'select needs `value` or `label`');
    const opts = Array.from(el.options);
    const byLabel = a.value === undefined || a.value === null;
    const find1 = (w) => {
      w = String(w);
      const lab = (o) => o.label || o.text;
      const tiers = [
        (o) => !byLabel && o.value === w, (o) => !byLabel && o.value.trim() === w.trim(),
        (o) => norm(lab(o)) === norm(w), (o) => norm(lab(o)).includes(norm(w)),
        (o) => fold(lab(o)) === fold(w), (o) => fold(lab(o)).includes(fold(w)),
        (o) => o.value === w, (o) => norm(o.value) === norm(w),
      ];
      for (const f of tiers) { const o = opts.find((x) => w !== '' && f(x)); if (o) return o; }
      return null;
    };
    const picked = [];
    for (const w of el.multiple ? wanted : wanted.slice(0, 1)) {
      const o = find1(w);
      if (!o) {
        const labels = opts.slice(0, 20).map((x) => q(clean(x.label || x.text)) + (x.value !== clean(x.label || x.text) ? ` (value ${q(x.value)})` : '')).join(', ');
        return err('element_not_found', `no option matches ${q(String(w))} in ${shortDesc(el, C)}; options: ${labels}${opts.length > 20 ? `, … (${opts.length} in all)` : ''}`);
      }
      if (o.disabled) return err('not_interactable', `option ${q(clean(o.text))} is disabled`);
      picked.push(o);
    }
    if (el.multiple) for (const o of opts) o.selected = picked.includes(o);
    else picked[0].selected = true;
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { value: el.multiple ? picked.map((o) => o.value) : el.value, label: picked.map((o) => clean(o.label || o.text)).join(', ') };
  }

  function checkState(a) {
    const t = asTarget(a);
    if (!t) return err('invalid_arguments', 'checkState needs {target}');
    let C = ctx();
    const r = resolve(t, C);
    if (r.error) return r;
    let el = r.el;
    const isBox = (x) => (x.localName === 'input' && (x.type === 'checkbox' || x.type === 'radio')) ||
      /^(checkbox|radio|switch|menuitemcheckbox|menuitemradio)$/.test(x.getAttribute('role') || '');
    if (!isBox(el)) {
      let c = null;
      if (el.localName === 'label') c = el.control;
      if (!c || !isBox(c)) {
        const inner = el.querySelectorAll('input[type=checkbox],input[type=radio],[role=checkbox],[role=radio],[role=switch]');
        c = inner.length === 1 ? inner[0] : null;
      }
      if (!c) return err('not_interactable', `${shortDesc(el, C)} is not a checkbox, radio or switch`);
      el = c;
    }
    const role = el.getAttribute('role') || '';
    const kind = /switch/.test(role) ? 'switch' : el.type === 'radio' || /radio/.test(role) ? 'radio' : 'checkbox';
    let target = el;
    if (!visible(el, C)) {
      let labels = [];
      try { labels = Array.from(el.labels || []); } catch { /* none */ }
      const l = labels.find((x) => visible(x, C));
      if (l) target = l;
    }
    let clickRect = null;
    if (visible(target, C)) {
      if (a.scroll !== false) { scrollTo(target); C = ctx(); }
      const rr = topRect(target, C);
      clickRect = { x: rr.x, y: rr.y, width: rr.width, height: rr.height };
    }
    const c = checkedOf(el);
    return { checked: c === undefined ? false : c, kind, disabled: isDisabled(el), clickRect, element: desc(el, C),
      via_label: target !== el };
  }

  function scroll(a) {
    a = a || {};
    const amount = Number(a.amount ?? a.amount_px ?? 0);
    if (!Number.isFinite(amount)) return err('invalid_arguments', '`amount` must be a number of pixels');
    const t = asTarget(a);
    const C = ctx();
    const out = (x) => ({ scroll_y: Math.round(x.top), at_end: x.top + x.h >= x.sh - 2, at_top: x.top <= 0 });
    if (t) {
      const r = resolve(t, C);
      if (r.error) return r;
      const el = r.el;
      if (!amount) {
        scrollTo(el);
        const w = el.ownerDocument.defaultView;
        const se = el.ownerDocument.scrollingElement;
        return out({ top: w.scrollY, h: w.innerHeight, sh: se.scrollHeight });
      }
      el.scrollBy({ top: amount, behavior: 'instant' });
      return Object.assign(out({ top: el.scrollTop, h: el.clientHeight, sh: el.scrollHeight }), { element: desc(el, C) });
    }
    const se = document.scrollingElement || document.documentElement;
    const before = window.scrollY;
    window.scrollBy({ top: amount, behavior: 'instant' });
    if (window.scrollY === before && amount && se.scrollHeight <= window.innerHeight + 2) {
      // The document does not scroll: use the biggest scrollable container.
      let best = null, area = 0;
      for (const el of document.querySelectorAll('*')) {
        if (el.scrollHeight <= el.clientHeight + 2 || el.clientHeight < 100) continue;
        const oy = cs(el, C).overflowY;
        if (oy !== 'auto' && oy !== 'scroll') continue;
        const r = el.getBoundingClientRect();
        if (r.width * r.height > area) { area = r.width * r.height; best = el; }
      }
      if (best) {
        best.scrollBy({ top: amount, behavior: 'instant' });
        return Object.assign(out({ top: best.scrollTop, h: best.clientHeight, sh: best.scrollHeight }), { container: elDesc(best, C) });
      }
    }
    return out({ top: window.scrollY, h: window.innerHeight, sh: se.scrollHeight });
  }

  // Full snapshot lines (all pages) with header, plus paging.
  function buildSnapshot(a, C) {
    pruneRefs();
    const page = Math.max(1, parseInt(a.page, 10) || 1);
    if (page === 1) S.baseline = S.last;
    const base = a.mark_new === false ? null : S.baseline;
    const start = document.body || document.documentElement;
    const R = render('snap', start, C, { isNew: base ? (r) => !base.has(r) : null });
    const lines = mergeRuns(R.lines.filter((l, k) => !(l.land && (k + 1 >= R.lines.length || R.lines[k + 1].land))));
    const refs = new Set(R.refs);
    if (a.record !== false) S.last = refs;
    let fresh = 0;
    if (base) for (const r of refs) if (!base.has(r)) fresh++;
    const header = `Page: ${cut(clean(document.title), 100) || '(untitled)'} — ${cut(location.href, 200)}`;
    return { lines, refs, fresh, header, page };
  }
  function paginate(lines, header, max) {
    const pages = [];
    let cur = [], size = header.length + 1;
    const budget = Math.max(500, max - 160); // room for the footer
    const carried = (l) => (l.land ? 0 : (l.ctx ? l.ctx.length + 13 : 0) + (l.th ? l.th.length + 1 : 0));
    for (let k = 0; k < lines.length; k++) {
      const len = lines[k].s.length + 1;
      if (cur.length && size + len > budget) { pages.push(cur); cur = []; size = header.length + 1 + carried(lines[k]); }
      cur.push(k);
      size += len;
    }
    if (cur.length || !pages.length) pages.push(cur);
    return pages;
  }
  function snapshot(a) {
    a = a || {};
    const C = ctx();
    const max = Math.max(1000, parseInt(a.max_chars, 10) || 12000);
    const b = buildSnapshot(a, C);
    const full = b.header + '\n' + b.lines.map((l) => l.s).join('\n');
    const pages = paginate(b.lines, b.header, max);
    const n = pages.length, page = Math.min(b.page, n);
    const idx = pages[page - 1];
    const out = [b.header];
    if (page > 1 && idx.length) { // carry the context over page breaks
      const first = b.lines[idx[0]];
      if (!first.land && first.ctx) out.push(first.ctx + ' (continued)');
      if (first.th) out.push(first.th);
    }
    for (const k of idx) out.push(b.lines[k].s);
    if (n > 1) {
      const nav = page < n ? `Next: browser_snapshot {"page":${page + 1}}` : `Previous: browser_snapshot {"page":${page - 1}}`;
      out.push(`… page ${page} of ${n} (${num(b.refs.size)} elements). ${nav}, or browser_find {"query":"..."}`);
    }
    return { text: out.join('\n'), total_chars: full.length, page, pages: n, elements: b.refs.size, new_elements: b.fresh };
  }

  function find(a) {
    a = a || {};
    const query = clean(a.query);
    if (!query) return err('invalid_arguments', 'find needs a non-empty `query`');
    const maxR = Math.max(1, parseInt(a.max_results, 10) || 20);
    const C = ctx();
    const b = buildSnapshot({ page: 2, mark_new: false, record: false }, C); // leaves the *new* baseline alone
    const pages = paginate(b.lines, b.header, Math.max(1000, parseInt(a.max_chars, 10) || 12000));
    const pageOf = new Map();
    pages.forEach((p, k) => p.forEach((i) => pageOf.set(i, k + 1)));
    const lines = b.lines.map((l, k) => ({ l, k })).filter((x) => !x.l.land);
    let hits = [];
    for (const f of [norm, fold]) {
      const qv = f(query);
      hits = lines.filter((x) => f(x.l.s).includes(qv));
      if (hits.length) break;
    }
    if (!hits.length) { // every word, in any order
      const ws = fold(query).split(' ');
      hits = lines.filter((x) => { const s = fold(x.l.s); return ws.every((w) => s.includes(w)); });
    }
    const qf = fold(query);
    const matches = hits.slice(0, maxR).map((x) => {
      const m = { line: x.l.s, page: pageOf.get(x.k) };
      if (x.l.refs.length) { // the ref of the item the query is in, else the line's first
        const seg = x.l.s.split(/(?=\[e\d+\] )/).find((p) => /^\[e\d+\]/.test(p) && fold(p).includes(qf));
        m.ref = seg ? seg.slice(1, seg.indexOf(']')) : x.l.refs[0];
      }
      if (x.l.th) m.header = x.l.th;
      else if (x.l.ctx) m.section = x.l.ctx;
      return m;
    });
    return { matches, total: hits.length };
  }

  function readText(a) {
    a = a || {};
    const C = ctx();
    let start = document.body || document.documentElement;
    const t = asTarget(a);
    if (t) { const r = resolve(t, C); if (r.error) return r; start = r.el; }
    const max = Math.max(100, parseInt(a.max_chars, 10) || 20000);
    const text = visibleText(start, C);
    return { text: text.length > max ? cut(text, max) : text, truncated: text.length > max, total_chars: text.length };
  }
  function visibleText(start, C) {
    // An element inside a hidden ancestor has no visible text at all.
    if (start.nodeType === 1 && info(start, C).hide) return '';
    return render('text', start, C).lines.map((l) => l.s).join('\n');
  }

  function dom(a) {
    a = a || {};
    const C = ctx();
    let el = document.documentElement;
    const t = asTarget(a);
    if (t) { const r = resolve(t, C); if (r.error) return r; el = r.el; }
    const c = el.cloneNode(true);
    const junk = 'script,style,noscript,template,link[rel~=stylesheet],link[rel=preload],link[rel=modulepreload],meta';
    for (const x of c.querySelectorAll(junk)) x.remove();
    if (c.matches && c.matches(junk)) return { html: '', truncated: false, total_chars: 0 };
    for (const s of c.querySelectorAll('svg')) s.replaceChildren();
    if (c.localName === 'svg') c.replaceChildren();
    const walker = c.ownerDocument.createTreeWalker(c, NodeFilter.SHOW_COMMENT);
    const comments = [];
    while (walker.nextNode()) comments.push(walker.currentNode);
    comments.forEach((n) => n.remove());
    for (const x of [c, ...c.querySelectorAll('*')]) {
      for (const at of Array.from(x.attributes)) {
        const n = at.name;
        if (n === 'style' || n.startsWith('on')) x.removeAttribute(n);
        else if ((n === 'src' || n === 'href' || n === 'srcset') && at.value.startsWith('data:') && at.value.length > 100) x.setAttribute(n, at.value.slice(0, 40) + '…');
      }
    }
    const html = c.outerHTML;
    const max = Math.max(200, parseInt(a.max_chars, 10) || 50000);
    const trunc = html.length > max;
    return { html: trunc ? html.slice(0, max) + `\n<!-- truncated: ${num(html.length)} chars in all -->` : html, truncated: trunc, total_chars: html.length };
  }

  // ---------------------------------------------------------------- state
  const LOGOUT = /\b(log ?out|sign ?out|log off)\b|đăng xuất|thoát/i;
  const LOGIN = /\b(log ?in|sign ?in)\b|đăng nhập/i;
  function state() {
    const C = ctx();
    const vis = (el) => visible(el, C);
    const clickables = qsaAll(C, 'a,button,[role=button],[role=menuitem],input[type=submit],input[type=button]');
    const label = (el) => nameOf(el, C) || clean(el.textContent);
    const passwords = qsaAll(C, 'input[type=password]').filter(vis);
    let logged = null;
    const logoutVisible = clickables.some((el) => vis(el) && LOGOUT.test(label(el)) && label(el).length < 40);
    const loginVisible = clickables.some((el) => { const n = label(el); return n.length < 40 && LOGIN.test(n) && vis(el); });
    const avatar = qsaAll(C, '[class*=avatar i],[id*=avatar i],img[alt*=avatar i],[aria-label*="account menu" i],[aria-label*="tài khoản" i][aria-haspopup]').some(vis);
    const logoutHidden = clickables.some((el) => LOGOUT.test(label(el)) && label(el).length < 40);
    if (logoutVisible || (avatar && !loginVisible && !passwords.length)) logged = true;
    else if (passwords.length || loginVisible) logged = false;
    else if (logoutHidden) logged = true;

    const vw = innerWidth, vh = innerHeight;
    let modal = qsaAll(C, 'dialog[open],[role=dialog],[role=alertdialog],[aria-modal=true]').some((el) => vis(el));
    if (!modal) {
      const cands = qsaAll(C, 'body > *, body > * > *, [class*=modal i], [class*=overlay i], [class*=popup i]');
      modal = cands.some((el) => {
        const i = info(el, C);
        if (i.hide || (i.pos !== 'fixed' && i.pos !== 'absolute') || !vis(el)) return false;
        const z = parseInt(i.s.zIndex, 10);
        if (!(z >= 10)) return false;
        const r = rectOf(i);
        const w = Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0)), h = Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
        return w * h > 0.5 * vw * vh && (clean(el.innerText).length > 0 || !!el.querySelector('img,iframe,input,button'));
      });
    }

    // Error banners: explicit alerts first, then short texts in *error* classes.
    let banner = null;
    const alerts = [['[role=alert],[aria-live=assertive],.error,.alert-danger,.alert-error', 2000], ['[class*=error i],[class*=invalid-feedback i]', 300]];
    for (const [sel, maxLen] of alerts) {
      for (const el of qsaAll(C, sel)) {
        if (/^(input|body|html|select|textarea)$/.test(el.localName) || /success|info/i.test(String(el.className)) || !vis(el)) continue;
        const t = clean(visibleText(el, C));
        if (t && t.length <= maxLen) { banner = cut(t, 200); break; }
      }
      if (banner) break;
    }

    const bodyText = document.body ? document.body.innerText : '';
    const text = fold(bodyText);
    const iframes = qsaAll(C, 'iframe');
    let challenge = null;
    const capFrame = iframes.some((f) => /recaptcha|hcaptcha|challenges\.cloudflare\.com|turnstile/i.test(f.src) &&
      !/size=invisible/.test(f.src) && !f.closest('.grecaptcha-badge') && vis(f) && rectOf(info(f, C)).width >= 50);
    const capEl = qsaAll(C, '.g-recaptcha,.h-captcha,.cf-turnstile,[data-sitekey]').some((el) => el.getAttribute('data-size') !== 'invisible' &&
      el.localName !== 'button' && el.localName !== 'input' && vis(el) && rectOf(info(el, C)).width >= 30);
    if (capFrame || capEl || /verify you are human|this search was made by a human|i'm not a robot|i am not a robot|xac minh ban la con nguoi|toi khong phai la nguoi may/.test(text) ||
      /^just a moment/i.test(document.title)) challenge = 'captcha';
    const inputs = qsaAll(C, 'input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([type=submit]):not([type=button])').filter(vis);
    const OTP = /\botp\b|one[-_ ]?time|verification[-_ ]?code|security[-_ ]?code|ma xac thuc|ma otp|ma xac nhan|2fa|mfa|totp|passcode/;
    const otpInput = inputs.some((el) => el.autocomplete === 'one-time-code' ||
      OTP.test(fold([el.name, el.id, el.placeholder, el.getAttribute('aria-label'), labelsText(el, C)].join(' '))));
    const digitBoxes = inputs.filter((el) => el.maxLength === 1).length >= 4;
    const codeInput = otpInput || digitBoxes || inputs.some((el) => /code|ma\b/.test(fold(el.name + ' ' + el.id + ' ' + el.placeholder)));
    if (!challenge) {
      if (/authenticator|two[- ]factor|2-step|two-step|xac thuc hai yeu to|xac minh 2 buoc|xac thuc 2 buoc/.test(text) && codeInput) challenge = '2fa';
      else if (otpInput || digitBoxes) challenge = 'otp';
      else if (passwords.length) {
        // A login wall: a short login form that is (nearly) all the page shows.
        const p = passwords[0];
        const inDialog = !!p.closest('dialog,[role=dialog],[aria-modal=true]');
        const form = p.closest('form');
        const fields = form ? Array.from(form.querySelectorAll('input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([type=submit]):not([type=button]),select,textarea')).filter(vis).length : 2;
        const outside = clean(bodyText).length - (form ? clean(form.innerText).length : 0);
        if (fields <= 3 && (inDialog || modal || outside < 600)) challenge = 'login';
      }
    }
    const loading = document.readyState !== 'complete' ||
      qsaAll(C, '[aria-busy=true]').some(vis) ||
      qsaAll(C, '[class*=spinner i],[class*=loading i],[class*=loader i]').some((el) => el.localName !== 'img' && !/lazy/i.test(el.className) && vis(el));

    let unsaved = false;
    for (const el of qsaAll(C, 'input:not([type=hidden]),textarea,select')) {
      if (el.localName === 'select') {
        const opts = Array.from(el.options);
        // Without a default, a single select shows its first option.
        unsaved = opts.some((o) => o.defaultSelected) ? opts.some((o) => o.selected !== o.defaultSelected)
          : el.multiple ? opts.some((o) => o.selected) : el.selectedIndex > 0;
      }
      else if (el.type === 'checkbox' || el.type === 'radio') unsaved = el.checked !== el.defaultChecked;
      else if (el.type === 'file') unsaved = el.files && el.files.length > 0;
      else unsaved = el.value !== el.defaultValue;
      if (unsaved) break;
    }
    return { logged_in: logged, modal_open: modal, error_banner: banner, challenge, loading, unsaved_form: unsaved };
  }

  // ---------------------------------------------------------------- tables
  function table(a) {
    a = a || {};
    const C = ctx();
    const TSEL = 'table,[role=table],[role=grid],[role=treegrid]';
    let tbl = null;
    const t = asTarget(a);
    if (t) {
      const r = resolve(t, C);
      if (r.error) return r;
      tbl = r.el.matches(TSEL) ? r.el : r.el.querySelector(TSEL) || r.el.closest(TSEL);
      if (!tbl) return err('element_not_found', `${elDesc(r.el, C)} is not and does not contain a table`);
    } else {
      let best = 0;
      for (const x of qsaAll(C, TSEL)) {
        if (!visible(x, C)) continue;
        const n = x.localName === 'table' ? x.querySelectorAll('td,th').length : x.querySelectorAll('[role=cell],[role=gridcell],[role=columnheader],[role=rowheader]').length;
        if (n > best) { best = n; tbl = x; }
      }
      if (!tbl) return err('element_not_found', 'no visible table on the page (try browser_read_text or browser_snapshot)');
    }
    const maxRows = Math.max(1, parseInt(a.max_rows, 10) || 200);
    const cellText = (c) => contentText(c, C);
    let rows, headers = [];
    if (tbl.localName === 'table') {
      rows = Array.from(tbl.rows).filter((r) => r.closest('table') === tbl && !info(r, C).hide);
      const head = rows.filter((r) => r.parentElement.localName === 'thead');
      if (head.length) { headers = Array.from(head[head.length - 1].cells, cellText); rows = rows.filter((r) => !head.includes(r)); }
      else if (rows.length && Array.from(rows[0].cells).every((c) => c.localName === 'th')) { headers = Array.from(rows[0].cells, cellText); rows = rows.slice(1); }
      rows = rows.map((r) => Array.from(r.cells, cellText));
    } else {
      const rs = Array.from(tbl.querySelectorAll('[role=row]')).filter((r) => r.closest(TSEL) === tbl && !info(r, C).hide);
      const cellsOf = (r) => Array.from(r.querySelectorAll('[role=cell],[role=gridcell],[role=columnheader],[role=rowheader]')).filter((c) => c.closest('[role=row]') === r);
      const hi = rs.findIndex((r) => r.querySelector('[role=columnheader]'));
      if (hi >= 0) headers = cellsOf(rs[hi]).map(cellText);
      rows = rs.filter((r, k) => k !== hi).map((r) => cellsOf(r).map(cellText)).filter((r) => r.length);
    }
    const cap = tbl.localName === 'table' && tbl.caption ? contentText(tbl.caption, C) : nameOf(tbl, C) || null;
    return { caption: cap || null, headers, rows: rows.slice(0, maxRows), total_rows: rows.length, truncated: rows.length > maxRows, ref: refFor(tbl) };
  }

  // ---------------------------------------------------------------- facts
  // Currencies around an amount (the amount itself is read by the money
  // parser, vocab::money). Case matters: `Ft`, `kr`, `TL` are currencies,
  // `ft` (feet) is not.
  const CODES = 'VNĐ|VND|USD|EUR|GBP|JPY|CNY|KRW|TWD|HKD|SGD|AUD|CAD|NZD|CHF|SEK|NOK|DKK|ISK|PLN|CZK|HUF|RON|BGN|HRK|RSD|RUB|UAH|BYN|KZT|TRY|ILS|AED|SAR|QAR|ZAR|INR|THB|MYR|IDR|PHP|MXN|BRL|ARS|CLP|COP|PEN|UYU|EGP|NGN|PKR|BDT';
  const CUR_PRE = `US\\$|NT\\$|HK\\$|NZ\\$|MX\\$|AU\\$|CA\\$|S\\$|A\\$|C\\$|R\\$|\\$|€|£|¥|￥|₫|₩|₹|₸|₺|₽|₴|₪|₦|฿|₱|Rp\\.?|RM|Rs\\.?|zł|Kč|Ft|kr\\.?|Kr\\.?|лв\\.?|${CODES}`;
  const CUR_POST = `₫|đồng|vnđ|vnd|đ|Đ|usd|eur|€|\\$|£|¥|￥|円|元|₩|원|₹|₸|₺|₽|₴|₪|₦|฿|₱|zł|zl|Zł|Kč|kč|Ft|kn|Kn|KN|kr\\.?|Kr\\.?|:-|лв\\.?|грн\\.?|руб\\.?|р\\.|TL|lei|Lei|${CODES}`;
  const NUMP = "\\d{1,3}(?:[.,\\u00a0\\u202f '’]\\d{3})+(?:[.,]\\d{1,2}|,-)?|\\d+(?:[.,]\\d{1,2}|,-)?";
  const PRICE_RE = new RegExp(`(?<![A-Za-z])(?:${CUR_PRE})\\s?(?:${NUMP})(?![\\d])|(?<![\\d.,])(?:${NUMP})\\s?(?:${CUR_POST})(?![\\p{L}\\d])`, 'gu');
  // A price split across elements ("$ 34 . 98", "1 299 , 00 €") joined back.
  const joinSplit = (t) => t.replace(/(\d) ?([.,]) (\d{2})(?!\d)/g, '$1$2$3').replace(/(\d) ([.,])(\d{2})(?!\d)/g, '$1$2$3');
  // A UTF-8 page the browser decoded as windows-1252 (served without a
  // charset): "å…ƒ" back to "元". Only strings that decode as UTF-8 change.
  const CP1252 = new Map(Object.entries({ '€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87, 'ˆ': 0x88,
    '‰': 0x89, 'Š': 0x8a, '‹': 0x8b, 'Œ': 0x8c, 'Ž': 0x8e, '\u2018': 0x91, '\u2019': 0x92, '\u201c': 0x93, '\u201d': 0x94, '•': 0x95,
    '–': 0x96, '—': 0x97, '˜': 0x98, '™': 0x99, 'š': 0x9a, '›': 0x9b, 'œ': 0x9c, 'ž': 0x9e, 'Ÿ': 0x9f }));
  const MOJIBAKE = /[\u00c2-\u00f4][\u0080-\u00bf€‚ƒ„…†‡ˆ‰Š‹ŒŽ\u2018\u2019\u201c\u201d•–—˜™š›œžŸ]/;
  const misdecoded = () => /^(windows-1252|iso-8859-1|us-ascii)$/i.test(document.characterSet || '') &&
    MOJIBAKE.test((document.title || '') + ' ' + (document.body ? document.body.textContent.slice(0, 5000) : ''));
  function unmojibake(str) {
    if (!MOJIBAKE.test(str)) return str;
    const bytes = [];
    let need = 0;
    for (const ch of str) {
      const c = ch.codePointAt(0);
      let b;
      if (c < 0x100) b = c;
      else if (CP1252.has(ch)) b = CP1252.get(ch);
      else return str;
      // A no-break space (byte A0) inside a sequence that whitespace
      // cleaning turned into a plain space.
      if (b === 0x20 && need > 0) b = 0xa0;
      need = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : b >= 0xc2 && b < 0xe0 ? 1 : b >= 0x80 && b < 0xc0 && need > 0 ? need - 1 : 0;
      bytes.push(b);
    }
    try { return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes)); } catch { return str; }
  }
  // "Add to cart" / "Buy now" in the major shop languages (folded).
  const BUY_TEXT = new RegExp('^(?:\\+\\s*)?(?:add to (?:cart|bag|basket|trolley)|add to shopping (?:cart|bag)|buy now|buy it now|' +
    'in den (?:warenkorb|einkaufswagen)|in den korb|jetzt kaufen|sofort kaufen|ajouter au panier|acheter|' +
    'aggiungi al carrello|acquista ora|anadir al carrito|anadir a la cesta|comprar|agregar al carrito|adicionar ao carrinho|' +
    'in winkelwagen|in winkelmand|do koszyka|kup teraz|do kosiku|koupit|do kosika|kupit|vlozit do kosika|kupi|dodaj u kosaricu|' +
    'v kosarico|kosarba|lagg i varukorgen|kop|legg i handlekurv|laeg i kurv|sepete ekle|купить|в корзину|добавить в корзину|' +
    'them vao gio|them vao gio hang|mua ngay|chon mua|dat mua|カートに入れる|今すぐ買う|購入手続き|加入購物車|加入购物车|立即购买|立即購買|' +
    '直接購買|放入購物車|장바구니 담기|장바구니|구매하기|바로구매)(?:\\s|$|!|\\.)', 'u');
  const BUY_ATTR = /add[-_]?to[-_]?(?:cart|basket|bag|trolley)|addtocart|buy[-_]?(?:now|btn|button|process)|btn[-_]?(?:buy|cart)|cart[-_]?(?:button|btn)|button[-_]?cart/i;
  const ID_ATTRS = ['data-sku', 'data-product-sku', 'data-asin', 'data-mpn', 'data-product-id', 'data-productid', 'data-product-code', 'data-item-id', 'data-itemid', 'data-ean', 'data-gtin'];
  const PRICE_HINT = /price|gia|amount|cost|total|discount|khuyen/;
  const PRICE_WORDS = new Set(['sale', 'old', 'regular', 'original', 'giam', 'was', 'now', 'final', 'special', 'km', 'list',
    'market', 'tong', 'new', 'current', 'compare', 'strike', 'through', 'save', 'subtotal', 'shipping', 'ship', 'fee', 'tax']);
  const isPriceHint = (tk) => { const f = fold(tk); return PRICE_HINT.test(f) || f.split(/[-_]/).some((w) => PRICE_WORDS.has(w)); };
  function priceContext(el, before) {
    const hints = [];
    let e = el;
    for (let k = 0; k < 5 && e && e.nodeType === 1; k++, e = parentEl(e)) {
      const tokens = [e.id, typeof e.className === 'string' ? e.className : '', e.getAttribute('itemprop') || ''].join(' ').split(/\s+/);
      for (const tk of tokens) if (tk && tk.length < 40 && isPriceHint(tk) && !hints.includes(tk)) hints.push(tk);
    }
    // The words just before the price ("Giá:", "Tổng cộng", "You save").
    const lab = /(?<![\p{L}\p{N}])(\p{L}[\p{L} ]{0,30}?)\s*:?\s*$/u.exec(before.replace(/\s+/g, ' '));
    const label = lab ? clean(lab[1]) : '';
    return cut([label, hints.slice(0, 3).join(' ')].filter(Boolean).join(' / '), 100);
  }
  // Inline text just before an element, within its block ("Giá mới: <b>…").
  function textBefore(el, C) {
    let out = '';
    for (let e = el, up = 0; e && up < 3 && out.length < 50; up++) {
      for (let n = e.previousSibling; n && out.length < 50; n = n.previousSibling) {
        if (n.nodeType === 1 && !INLINE.has(cs(n, C).display)) return out;
        out = (n.textContent || '') + out;
      }
      e = e.parentElement;
      if (!e || !INLINE.has(cs(e, C).display)) break;
    }
    return out;
  }
  function isStruck(el, C) {
    for (let e = el, k = 0; e && e.nodeType === 1 && k < 5; e = parentEl(e), k++) {
      if (/^(del|s|strike)$/.test(e.localName)) return true;
      if (cs(e, C).textDecorationLine.includes('line-through')) return true;
    }
    return false;
  }
  // What a part of the page is about, from the element and a few of its
  // ancestors (landmarks, roles, id/class/aria-label words): '' when it is
  // the page's own content. A stock phrase or a buy button there speaks of
  // something else than the main product (issue 30).
  // Class words are matched whole; words of styling (`text-size-large`,
  // `color-muted`) are not among them.
  const REGION_WORDS = [
    ['chat', /^(chat|livechat|chatbot|intercom|zendesk|tawk|messenger|helpdesk|zopim|olark)$/],
    ['recommendation', /^(recommendations?|recommended|related|similar|upsells?|crosssells?|carousel|slick|swiper|recently|accessories|bundles?)$/],
    ['review', /^(reviews?|testimonials?|comments?|questions?|qa|faq)$/],
    ['newsletter', /^(newsletter|subscribe|subscription|signup)$/],
    ['store', /^(stores?|instore|pickup|shops|branches|warehouse)$/],
    ['delivery', /^(delivery|shipping|postcode|zipcode)$/],
    ['variant', /^(variants?|variations?|swatch|swatches)$/],
  ];
  const regionWords = (el) => {
    const raw = [el.id, typeof el.className === 'string' ? el.className : '', el.getAttribute('aria-label') || '', el.getAttribute('data-testid') || ''].join(' ');
    return raw.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  };
  function regionOf(el, buttons) {
    if (el.closest('nav,header,footer,aside,[role=navigation],[role=banner],[role=contentinfo],[role=complementary]')) return 'furniture';
    if (el.closest('dialog,[role=dialog],[role=alertdialog],[aria-modal=true]')) return 'dialog';
    if (!buttons && el.closest('select,option,[role=listbox],[role=radiogroup]')) return 'variant';
    for (let e = el, k = 0; e && e.nodeType === 1 && k < 7 && e !== document.body; e = parentEl(e), k++) {
      const words = regionWords(e);
      for (const [name, re] of REGION_WORDS) {
        // A buy box's own options and delivery lines hold the main product's button.
        if (buttons && (name === 'variant' || name === 'delivery' || name === 'store')) continue;
        if (words.some((w) => re.test(w))) return name;
      }
    }
    return '';
  }
  function facts(a) {
    a = a || {};
    const C = ctx();
    const fix = misdecoded() ? unmojibake : (x) => x;
    let scope = document.body || document.documentElement;
    if (a.selector || a.ref || a.target) {
      const r = resolve(asTarget(a.target ? a : { selector: a.selector, ref: a.ref }), C);
      if (r.error) return r;
      scope = r.el;
    }
    // JSON-LD and meta are page-wide (they live in <head>).
    const jsonld = [];
    let jsonldErrors = 0;
    const addLd = (o) => {
      if (Array.isArray(o)) { o.forEach(addLd); return; }
      if (!o || typeof o !== 'object') return;
      if (Array.isArray(o['@graph'])) { o['@graph'].forEach(addLd); return; }
      jsonld.push(o);
    };
    for (const s of qsaAll(C, 'script[type="application/ld+json" i]')) {
      try { addLd(JSON.parse(s.textContent.trim().replace(/^<!--|-->$/g, ''))); } catch { jsonldErrors++; }
    }
    const meta = {};
    for (const m of document.querySelectorAll('meta[content]')) {
      const k = (m.getAttribute('property') || m.getAttribute('name') || '').toLowerCase();
      if (k && !(k in meta)) meta[k] = cut(clean(m.getAttribute('content')), 500);
    }
    const canon = document.querySelector('link[rel=canonical]');
    if (canon) meta.canonical = canon.href;
    // Microdata.
    const itemOf = (el, depth) => {
      const props = {};
      const visit = (n) => {
        for (const c of n.children) {
          if (c.hasAttribute('itemprop')) {
            let v;
            if (c.hasAttribute('itemscope')) v = depth < 5 ? itemOf(c, depth + 1) : null;
            else if (c.hasAttribute('content')) v = c.getAttribute('content');
            else if (/^(a|link|area)$/.test(c.localName)) v = c.href;
            else if (/^(img|audio|video|source|iframe|embed)$/.test(c.localName)) v = c.src;
            else if (c.localName === 'time' && c.hasAttribute('datetime')) v = c.getAttribute('datetime');
            else if (/^(data|meter|input)$/.test(c.localName) && c.hasAttribute('value')) v = c.getAttribute('value');
            else v = cut(clean(c.textContent), 500);
            for (const name of c.getAttribute('itemprop').trim().split(/\s+/)) {
              if (!(name in props)) props[name] = v;
              else props[name] = [].concat(props[name], [v]);
            }
            if (c.hasAttribute('itemscope')) continue;
          }
          if (!c.hasAttribute('itemscope')) visit(c);
        }
      };
      visit(el);
      return { type: el.getAttribute('itemtype') || null, properties: props };
    };
    const microdata = Array.from(scope.querySelectorAll('[itemscope]:not([itemprop])')).slice(0, 50).map((el) => itemOf(el, 0));
    if (scope.matches('[itemscope]:not([itemprop])')) microdata.unshift(itemOf(scope, 0));
    // Visible text, label/value pairs and prices.
    const text = visibleText(scope, C);
    const pairs = [], seenPair = new Set();
    const addPair = (l, v) => {
      l = clean(l).replace(/:$/, '');
      v = clean(v.replace(/~~/g, ''));
      if (!l || !v || l.length > 60 || v.length > 300 || !/\p{L}/u.test(l) || pairs.length >= 300) return;
      const key = l + '\u0000' + v;
      if (!seenPair.has(key)) { seenPair.add(key); pairs.push([l, v]); }
    };
    const visEl = (el) => visible(el, C);
    for (const tr of scope.querySelectorAll('tr')) {
      const cells = Array.from(tr.cells || []);
      if (cells.length === 2 && visEl(tr)) addPair(contentText(cells[0], C), contentText(cells[1], C));
      else if (cells.length > 2 && cells[0].localName === 'th' && cells.slice(1).every((c) => c.localName === 'td') && visEl(tr)) addPair(contentText(cells[0], C), cells.slice(1).map((c) => contentText(c, C)).join(' | '));
    }
    for (const dt of scope.querySelectorAll('dt')) {
      if (!visEl(dt)) continue;
      const vals = [];
      for (let d = dt.nextElementSibling; d && d.localName === 'dd'; d = d.nextElementSibling) vals.push(contentText(d, C));
      addPair(contentText(dt, C), vals.join('; '));
    }
    for (const el of scope.querySelectorAll('li,div,p,tr')) { // <x><span>RAM</span><span>16 GB</span></x>
      const ch = el.children;
      if (ch.length !== 2 || el.localName === 'tr' || ch[0].children.length > 2 || ch[1].children.length > 4) continue;
      const leafy = (c) => !c.matches(INTERACTIVE_CSS) && !c.querySelector(INTERACTIVE_CSS + ',div,p,li,tr,table,ul,ol,dl,section');
      if (!leafy(ch[0]) || !leafy(ch[1]) || !visEl(el)) continue;
      const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.data.trim());
      if (!own) { const l = contentText(ch[0], C); if (l.length <= 40) addPair(l, contentText(ch[1], C)); }
    }
    for (const line of text.split('\n')) {
      const m = /^([^:|]{1,60}?)\s*:\s+(.{1,300})$/.exec(line);
      if (m && !/https?$/i.test(m[1]) && !/[.!?;]\s/.test(m[1]) && m[1].split(' ').length <= 6) addPair(m[1], m[2]);
    }
    for (const el of scope.querySelectorAll('[aria-label]')) {
      const t = contentText(el, C), l = el.getAttribute('aria-label');
      if (t && norm(t) !== norm(l) && t.length <= 300 && !isInteractive(el, roleOf(el)) && visEl(el)) addPair(l, t);
    }
    // Prices: from each visible text node with digits, the smallest element
    // whose text holds a whole price ("21.490.000<sup>₫</sup>"); context and
    // strike-through come from the deepest element holding that price.
    const prices = [], seenPrice = new Map();
    // Text nodes joined by spaces ("21.490.000<sup>₫</sup>", cells apart), bounded.
    const joined = (el, max) => {
      let out = '';
      const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = w.nextNode(); n && out.length <= max; n = w.nextNode()) if (!SKIP.has(n.parentNode.localName)) out += ' ' + fix(n.data);
      return joinSplit(clean(out));
    };
    const deepest = (el, str) => {
      for (let go = true; go;) {
        go = false;
        for (const c of el.children) if (joined(c, 300).includes(str)) { el = c; go = true; break; }
      }
      return el;
    };
    // Where a price stands: its font size, its distance in the tree from the
    // page's <h1> (the main product's), inside a link or the page's furniture.
    const h1 = Array.from(scope.querySelectorAll('h1')).find(visEl) || null;
    const h1Up = new Map();
    for (let e = h1, k = 0; e && k < 40; e = parentEl(e), k++) h1Up.set(e, k);
    const where = (el) => {
      let near = 99;
      for (let e = el, k = 0; e && k < 40; e = parentEl(e), k++) if (h1Up.has(e)) { near = k + h1Up.get(e); break; }
      const size = parseFloat(cs(el, C).fontSize) || 0;
      const furniture = !!el.closest('nav,header,footer,aside,[role=navigation],[role=banner],[role=contentinfo],[role=complementary]');
      return { size: Math.round(size * 10) / 10, near, link: !!el.closest('a[href]'), furniture };
    };
    const tw = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
    for (let n = tw.nextNode(); n && prices.length < 200; n = tw.nextNode()) {
      if (!/\d/.test(n.data) || textHidden(n, C)) continue;
      let el = n.parentElement;
      if (!el || SKIP.has(el.localName)) continue;
      let t = joined(el, 300);
      for (let up = 0; up < 2 && !t.match(PRICE_RE) && el.parentElement && joined(el.parentElement, 81).length <= 80; up++) {
        el = el.parentElement;
        t = joined(el, 300);
      }
      for (const m of t.matchAll(PRICE_RE)) {
        const str = m[0], at = deepest(el, str);
        const seen = seenPrice.get(at) || new Set();
        if (seen.has(str)) continue;
        seen.add(str);
        seenPrice.set(at, seen);
        const own = joined(at, 300), pos = own.indexOf(str);
        const before = (pos > 0 ? own.slice(0, pos) : textBefore(at, C)).slice(-50);
        // Amounts are read by the money parser (vocab::money), not here.
        prices.push(Object.assign({ text: clean(str), context: priceContext(at, before), struck: isStruck(at, C) }, where(at)));
      }
    }
    // Buy buttons (add to cart / buy now, many languages) and whether they are disabled.
    const buy = [];
    for (const el of scope.querySelectorAll('button,input[type=submit],input[type=button],input[type=image],a[href],[role=button]')) {
      if (buy.length >= 10) break;
      // The element's own names, a script link's call and its wrapper's class (`<div class="buyBtn"><a href="javascript:buy(…)">`).
      const href = el.localName === 'a' ? el.getAttribute('href') || '' : '';
      const wrap = el.parentElement && typeof el.parentElement.className === 'string' ? el.parentElement.className : '';
      const attrs = [el.id, typeof el.className === 'string' ? el.className : '', el.getAttribute('name') || '', /^javascript:/i.test(href) ? href.slice(0, 80) : '', wrap].join(' ');
      // A link counts as a button when it looks like one (`href="#"`, a button class);
      // checked first, as pages have thousands of plain links.
      const scriptLink = el.localName !== 'a' || /^(#|javascript:)/i.test(href);
      if (!scriptLink && !/btn|button|cta|cart|buy/i.test(attrs)) continue;
      const label = fix(clean([el.localName === 'input' ? el.value || el.alt : cut(el.textContent || '', 200), el.getAttribute('aria-label'), el.getAttribute('title')].filter(Boolean).join(' ')));
      const says = label.length <= 60 && (BUY_TEXT.test(fold(label)) || BUY_TEXT.test(norm(label)));
      if (label.length > 60 || !(says || (BUY_ATTR.test(attrs) && scriptLink)) || !visEl(el)) continue;
      const disabled = !!(el.disabled || el.getAttribute('aria-disabled') === 'true' || /(^|[\s_-])(disabled|inactive|unavailable|sold-?out)([\s_-]|$)/i.test(attrs) || el.closest('fieldset:disabled'));
      buy.push({ text: cut(label, 60), disabled, other: regionOf(el, true) });
    }
    // Stock lines: short visible texts holding one of the stock phrases the
    // caller gave (folded), with what their part of the page is about.
    const stock = [];
    const phrases = Array.isArray(a.stock_phrases) ? a.stock_phrases.filter((p) => typeof p === 'string' && p.length > 1).slice(0, 500) : [];
    // One pattern for all the phrases, built once per list.
    const key = phrases.join('\u0000');
    if (phrases.length && S.stockKey !== key) {
      S.stockKey = key;
      S.stockRe = new RegExp(phrases.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));
    }
    if (phrases.length) {
      const seenBlock = new Set();
      const sw = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
      for (let n = sw.nextNode(); n && stock.length < 60; n = sw.nextNode()) {
        const d = n.data;
        if (d.length < 3 || d.length > 400 || !/\S/.test(d)) continue;
        if (!S.stockRe.test(fold(d)) || textHidden(n, C)) continue;
        let el = n.parentElement;
        if (!el || SKIP.has(el.localName)) continue;
        while (el.parentElement && el !== scope && INLINE.has(cs(el, C).display)) el = el.parentElement;
        if (seenBlock.has(el)) continue;
        seenBlock.add(el);
        stock.push({ text: cut(fix(joined(el, 200)), 200), other: regionOf(n.parentElement, false) });
      }
    }
    // Identifiers in data attributes (data-sku, data-product-id...), most frequent first.
    const idCount = new Map();
    for (const el of scope.querySelectorAll(ID_ATTRS.map((a) => `[${a}]`).join(','))) {
      for (const a of ID_ATTRS) {
        const v = clean(el.getAttribute(a) || '');
        if (!v || v.length > 40 || !/\d/.test(v)) continue;
        const k = a + '\u0000' + v;
        idCount.set(k, (idCount.get(k) || 0) + 1);
      }
      if (idCount.size > 200) break;
    }
    const ids = Array.from(idCount).sort((x, y) => y[1] - x[1]).slice(0, 20).map(([k, c]) => { const [a, v] = k.split('\u0000'); return [a, v, c]; });
    // The page's inline JSON state (`application/json` scripts,
    // `window.__STATE__ = {...}`): objects with a price next to a name or sku.
    const state = [];
    const PRICE_KEY = /^(price|saleprice|sale_price|finalprice|final_price|currentprice|current_price|pricevalue|price_value|offerprice|offer_price|sellingprice|selling_price|specialprice|special_price|priceamount|price_amount)$/i;
    const walk = (o, depth) => {
      if (!o || typeof o !== 'object' || depth > 12 || state.length >= 30) return;
      if (Array.isArray(o)) { for (const x of o.slice(0, 200)) walk(x, depth + 1); return; }
      const keys = Object.keys(o).slice(0, 300);
      const val = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? v.value ?? v.amount ?? null : v);
      const pk = keys.find((k) => PRICE_KEY.test(k) && /\d/.test(String(val(o[k]) ?? '')));
      const nk = keys.find((k) => /^(name|title|product_?name)$/i.test(k) && typeof o[k] === 'string');
      const sk = keys.find((k) => /^(sku|product_?id|item_?id|asin|mpn)$/i.test(k) && /^(string|number)$/.test(typeof o[k]));
      if (pk && (nk || sk)) {
        const ck = keys.find((k) => /^(currency|currency_?code|price_?currency)$/i.test(k) && typeof o[k] === 'string');
        const ak = keys.find((k) => /^(availability|in_?stock|stock_?status|is_?available|available)$/i.test(k) && /^(string|boolean|number)$/.test(typeof o[k]));
        state.push({ name: nk ? cut(clean(o[nk]), 200) : '', sku: sk ? String(o[sk]) : '', price: String(val(o[pk])),
          currency: ck ? o[ck] : '', availability: ak ? String(o[ak]) : '' });
      }
      for (const k of keys) if (o[k] && typeof o[k] === 'object') walk(o[k], depth + 1);
    };
    for (const sc of document.querySelectorAll('script:not([src])')) {
      const type = (sc.type || '').toLowerCase(), t = sc.textContent || '';
      if (state.length >= 30 || type.includes('ld+json') || t.length > 3000000 || !/price/i.test(t)) continue;
      let body = null;
      if (type === 'application/json') body = t;
      else {
        const m = /^\s*(?:window\.|self\.|var\s+|let\s+|const\s+)[\w$.]+\s*=\s*(?=\{)/.exec(t);
        if (m) body = t.slice(m[0].length).trim().replace(/;\s*$/, '');
      }
      if (!body) continue;
      try { walk(JSON.parse(body), 0); } catch { /* not JSON */ }
    }
    const out = { jsonld, jsonld_errors: jsonldErrors, microdata, meta, pairs, prices, buy, stock, ids, state, title: clean(document.title), url: location.href,
      lang: document.documentElement.lang || null, text: cut(text, 20000) };
    if (fix === unmojibake) {
      // Line by line: a line that does not decode is kept as it is.
      out.text = out.text.split('\n').map(unmojibake).join('\n');
      return JSON.parse(JSON.stringify(out), (k, v) => (typeof v === 'string' && k !== 'text' ? unmojibake(v) : v));
    }
    return out;
  }

  // ---------------------------------------------------------------- gate facts
  // What the gatekeeper needs to grade an action on `target`: the element
  // as the page shows it, whether a click or Enter on it submits its form,
  // whether it is a CAPTCHA or one-time-code field, the form and the fields
  // it would send, and a total the page shows. The target may be omitted
  // (keys go to the focused element).
  const OTP_HINT = /\botp\b|one[-_ ]?time|verification[-_ ]?code|security[-_ ]?code|ma xac thuc|ma otp|ma xac nhan|2fa|mfa|totp|passcode/;
  const CAPTCHA_SEL = '.g-recaptcha,.h-captcha,.cf-turnstile,[data-sitekey],iframe[src*=recaptcha],iframe[src*=hcaptcha],iframe[src*="challenges.cloudflare.com"],iframe[src*=turnstile]';
  const TEXTLIKE = new Set(['text', 'email', 'tel', 'url', 'password', 'search', 'number', '']);
  function submitsOnClick(el) {
    const f = el.form;
    if (!f) return false;
    if (el.localName === 'button') return (el.getAttribute('type') || 'submit').toLowerCase() === 'submit';
    return el.localName === 'input' && (el.type === 'submit' || el.type === 'image');
  }
  function submitsOnEnter(el) {
    const f = el.form;
    if (!f || el.localName !== 'input' || !TEXTLIKE.has(el.type)) return false;
    // Implicit submission: a form with a submit button, or a single field.
    if (f.querySelector('button:not([type]),button[type=submit],input[type=submit],input[type=image]')) return true;
    const fields = Array.from(f.elements).filter((x) => x.localName === 'input' && TEXTLIKE.has(x.type));
    return fields.length === 1;
  }
  function formFacts(el, C) {
    const f = el.form || (el.closest && el.closest('form'));
    if (!f) return null;
    const base = formOf(el) || { action: '', method: 'get', id: null };
    let name = f.getAttribute('aria-label') || '';
    if (!name) { const h = f.querySelector('h1,h2,h3,h4,legend'); if (h) name = contentText(h, C); }
    const fields = [];
    for (const x of Array.from(f.elements)) {
      const n = x.getAttribute('name');
      if (!n || x.disabled || x.localName === 'fieldset' || x.localName === 'object') continue;
      const type = (x.type || x.localName || '').toLowerCase();
      if (type === 'submit' || type === 'button' || type === 'reset' || type === 'image') continue;
      if ((type === 'checkbox' || type === 'radio') && !x.checked) continue;
      let value = '';
      if (type === 'file') value = Array.from(x.files || []).map((file) => file.name).join(', ');
      else if (x.localName === 'select') value = Array.from(x.selectedOptions || []).map((o) => o.value).join(', ');
      else value = String(x.value || '');
      // Whole values (up to 20,000 characters): an approval binds to them
      // (gate/wire.rs); the dialog shortens what it shows.
      fields.push({ name: n, kind: type, value: cut(value, 20000), label: cut(clean(labelsText(x, C) || x.getAttribute('aria-label') || x.placeholder || ''), 80) });
    }
    return { action: base.action, method: base.method, id: base.id || '', name: cut(clean(name), 80), fields };
  }
  function isChallengeField(el, C) {
    if (el.closest && el.closest(CAPTCHA_SEL)) return true;
    if (el.localName === 'iframe' && /recaptcha|hcaptcha|challenges\.cloudflare\.com|turnstile/i.test(el.src)) return true;
    if (el.localName !== 'input' && el.localName !== 'textarea') return false;
    if (el.autocomplete === 'one-time-code') return true;
    return OTP_HINT.test(fold([el.name, el.id, el.placeholder, el.getAttribute('aria-label'), labelsText(el, C)].join(' ')));
  }
  const TOTAL_LINE = /(t[oổ]ng|total|th[aà]nh ti[eề]n|t[aạ]m t[ií]nh|amount due|grand total|to pay|c[aầ]n thanh to[aá]n)/i;
  function pageTotal(text) {
    for (const line of text.split('\n')) {
      const l = clean(line);
      if (l && l.length <= 160 && TOTAL_LINE.test(l) && PRICE_RE.test(l)) { PRICE_RE.lastIndex = 0; return l; }
      PRICE_RE.lastIndex = 0;
    }
    return null;
  }
  // The price of what the control buys, and where it was read, first
  // found of: the chosen option of its form (`16GB/1TB - 21.490.000 ₫`),
  // the price shown nearest the control (the smallest box around it that
  // holds one: struck-through, instalment and saving amounts skipped), the
  // product's structured data (one JSON-LD Product offer, microdata,
  // `product:price` meta), the page's current price element. With the
  // quantity its form sends and a shipping line the page shows.
  const PRICE_SEL = '[itemprop="price"], [data-price], .price-current, .product-price, .current-price';
  // Amounts that are not the item's price: per month, saved, off, from,
  // a gift's worth, a free-shipping threshold, the shipping itself.
  const NOT_PRICE = /\/\s*(th[aá]ng|month|mo)\b|tr[aả] g[oó]p|ti[eế]t ki[eệ]m|gi[aả]m|t[aặ]ng|tr[iị] gi[aá]|installment|per month|\bsave\b|\boff\b|\bfrom\b|ch[iỉ] t[uừ]|đ[oơ]n t[uừ]|mi[eễ]n ph[ií]|v[aậ]n chuy[eể]n|giao h[aà]ng|shipping|delivery|postage/i;
  const OLD_PRICE = 'del,s,strike,[class*="old" i],[class*="was" i],[class*="compare" i],[class*="list-price" i]';
  const SHIP_LINE = /^(ph[ií] (v[aậ]n chuy[eể]n|giao h[aà]ng|ship)|ti[eề]n ship|shipping( fee| cost)?|delivery( fee| charge)?|postage)\s*[:：]?\s*/i;
  function priceIn(text) {
    const l = clean(text);
    PRICE_RE.lastIndex = 0;
    const m = l.length <= 160 ? PRICE_RE.exec(l) : null;
    PRICE_RE.lastIndex = 0;
    return m ? m[0].trim() : null;
  }
  // The first price shown in `box` above the control `el` that is the
  // price of something: in an element of its own (not an option, not
  // struck through), with no "per month", "save", "from", "shipping" around it.
  function shownPriceIn(box, el, C) {
    for (const e of box.querySelectorAll('*')) {
      // Above the control: what follows it is another product's, or a
      // list of them.
      if (!(e.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)) break;
      // Small elements only (a price and its currency, two levels at most):
      // reading a big box's text for each of its children would be slow.
      if (e.children.length > 2 || Array.from(e.children).some((c) => c.firstElementChild)) continue;
      if (/^(option|select|script|style|template|button)$/.test(e.localName)) continue;
      if (e.closest(OLD_PRICE) || e.closest('select')) continue;
      const own = clean(e.textContent);
      if (own.length > 80 || NOT_PRICE.test(own)) continue;
      const p = priceIn(own);
      if (!p || !visible(e, C)) continue;
      // The words around it say what the amount is (`Trả góp từ <b>…</b>/tháng`).
      const around = e.parentElement ? Array.from(e.parentElement.childNodes).filter((n) => n.nodeType === 3).map((n) => n.data).join(' ') : '';
      if (NOT_PRICE.test(around)) continue;
      return p;
    }
    return null;
  }
  function nearPrice(el, C) {
    let box = el.parentElement;
    for (let depth = 0; box && depth < 6 && box !== document.body && box !== document.documentElement; depth++, box = box.parentElement) {
      const p = shownPriceIn(box, el, C);
      if (p) return p;
    }
    return null;
  }
  // One product's offer in the page's structured data, as `21490000 VND`.
  function structuredPrice() {
    const items = [];
    const add = (o) => {
      if (Array.isArray(o)) { o.forEach(add); return; }
      if (!o || typeof o !== 'object') return;
      if (Array.isArray(o['@graph'])) { o['@graph'].forEach(add); return; }
      const type = [].concat(o['@type'] || []).map(String);
      if (type.some((t) => /^(schema:)?(Product|ProductGroup)$/i.test(t))) items.push(o);
    };
    for (const s of document.querySelectorAll('script[type="application/ld+json" i]')) {
      try { add(JSON.parse(s.textContent.trim().replace(/^<!--|-->$/g, ''))); } catch { /* not JSON */ }
    }
    const prices = new Set();
    for (const item of items) {
      for (const offer of [].concat(item.offers || [])) {
        if (!offer || typeof offer !== 'object') continue;
        const cur = offer.priceCurrency || (offer.priceSpecification && offer.priceSpecification.priceCurrency) || '';
        let price = offer.price != null ? offer.price : offer.priceSpecification && offer.priceSpecification.price;
        if (price == null && offer.lowPrice != null && String(offer.lowPrice) === String(offer.highPrice)) price = offer.lowPrice;
        if (price != null && String(price).trim() !== '') prices.add(`${String(price).trim()} ${cur}`.trim());
      }
    }
    // Many products or offers at different prices: no one price is this one.
    if (items.length === 1 && prices.size === 1) return [...prices][0];
    if (items.length > 1) return null;
    const md = document.querySelectorAll('[itemscope][itemtype*="schema.org/Product" i] [itemprop="price"]');
    if (md.length === 1) {
      const e = md[0];
      const price = e.getAttribute('content') || clean(e.textContent);
      const curEl = e.closest('[itemscope]') && e.closest('[itemscope]').querySelector('[itemprop="priceCurrency"]');
      const cur = curEl ? curEl.getAttribute('content') || clean(curEl.textContent) : '';
      if (price) return `${price} ${cur}`.trim();
    }
    const meta = (k) => { const m = document.querySelector(`meta[property="${k}"],meta[name="${k}"]`); return m ? clean(m.getAttribute('content')) : ''; };
    const amount = meta('product:price:amount') || meta('og:price:amount');
    if (amount) return `${amount} ${meta('product:price:currency') || meta('og:price:currency')}`.trim();
    return null;
  }
  function shippingShown(text) {
    for (const line of text.split('\n')) {
      const l = clean(line);
      const m = l.length <= 80 ? SHIP_LINE.exec(l) : null;
      if (!m) continue;
      const p = priceIn(l.slice(m[0].length));
      if (p) return p;
    }
    return null;
  }
  const QTY_FIELDS = 'input[name="quantity" i], input[name="qty" i], input[name="so_luong" i], input[name="soluong" i], select[name="quantity" i], select[name="qty" i]';
  function productPrice(el, C, text) {
    const form = el && (el.form || (el.closest && el.closest('form')));
    let quantity = 1;
    let price = null, from = null;
    if (form) {
      const qty = form.querySelector(QTY_FIELDS);
      if (qty) {
        const n = Number(qty.value);
        // A quantity that reads as none is no price to multiply.
        if (!Number.isInteger(n) || n < 1 || n > 100000) return null;
        quantity = n;
      }
      for (const opt of form.querySelectorAll('option:checked')) {
        const p = priceIn(opt.textContent);
        if (p) { price = p; from = 'variant'; break; }
      }
    }
    if (!price && el) { price = nearPrice(el, C); if (price) from = 'near_button'; }
    if (!price) { price = structuredPrice(); if (price) from = 'structured_data'; }
    if (!price) {
      for (const e of document.querySelectorAll(PRICE_SEL)) {
        if (!visible(e, C) || e.closest(OLD_PRICE)) continue;
        const p = priceIn(e.textContent);
        if (p) { price = p; from = 'price_element'; break; }
      }
    }
    if (!price) return null;
    return { price, from, quantity, shipping: shippingShown(text) };
  }
  function actionFacts(a) {
    const C = ctx();
    const t = asTarget(a);
    let el = null;
    if (t) {
      const r = resolve(t, C);
      if (r.error) return r;
      el = r.el;
    } else {
      el = activeEl(document);
      if (el === document.body || el === document.documentElement) el = null;
    }
    // The page's text, read once (it lays the page out).
    const text = document.body ? document.body.innerText : '';
    const out = { url: location.href, origin: location.origin, frame_url: null, target: null, page_total: pageTotal(text), price: null };
    if (!el) return out;
    out.price = productPrice(el, C, text);
    if (el.ownerDocument !== document) out.frame_url = el.ownerDocument.URL;
    const role = roleOf(el);
    out.target = {
      tag: el.localName,
      role: role || '',
      type: (el.getAttribute('type') || '').toLowerCase(),
      name: cut(nameOf(el, C, role) || '', 120),
      text: cut(contentText(el, C) || '', 120),
      value: el.localName === 'input' && el.type === 'password' ? '' : cut(String(el.value == null ? '' : el.value), 120),
      id: el.id || '',
      field_name: el.getAttribute('name') || '',
      class: typeof el.className === 'string' ? cut(el.className, 120) : '',
      href: el.localName === 'a' && el.href ? el.href : '',
      submits_form: submitsOnClick(el),
      enter_submits: submitsOnEnter(el),
      challenge_field: isChallengeField(el, C),
      form: formFacts(el, C),
    };
    return out;
  }

  function element(a) {
    const t = asTarget(a) || a;
    const r = resolve(t, ctx());
    return r.error ? null : r.el;
  }

  // Every entry point returns errors instead of throwing.
  const guard = (name, f) => function (a) {
    try { return f(a || {}); } catch (e) {
      return err('internal_error', `${name}: ${e && e.message ? e.message : String(e)}`);
    }
  };
  globalThis.__halley = Object.freeze({
    version: VERSION,
    element: (a) => { try { return element(a || {}); } catch { return null; } },
    locate: guard('locate', locate),
    pressArm: guard('pressArm', pressArm),
    pressDown: guard('pressDown', pressDown),
    pressEnd: guard('pressEnd', pressEnd),
    focus: guard('focus', focus),
    select: guard('select', select),
    checkState: guard('checkState', checkState),
    scroll: guard('scroll', scroll),
    snapshot: guard('snapshot', snapshot),
    find: guard('find', find),
    readText: guard('readText', readText),
    dom: guard('dom', dom),
    state: guard('state', state),
    table: guard('table', table),
    facts: guard('facts', facts),
    actionFacts: guard('actionFacts', actionFacts),
  });
})();
