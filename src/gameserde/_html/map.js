"use strict";
// gameserde's HTML byte map. Everything from the data reaches the page as text (textContent),
// never as markup; the page loads nothing (its Content-Security-Policy allows no source).
(async function () {
  const doc = document;
  const LINE = 16, BATCH = 200, SHOW = 40;
  const H = { title: 24, hex: 18, bits: 30, gap: 18, text: 18 };

  function el(tag, cls, text) {
    const e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  const hex8 = (n) => "0x" + n.toString(16).padStart(8, "0");

  async function load() {
    const text = doc.getElementById("gs-payload").textContent.trim();
    const raw = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const stream = new Blob([raw]).stream().pipeThrough(new DecompressionStream("deflate"));
    const all = new Uint8Array(await new Response(stream).arrayBuffer());
    const size = new DataView(all.buffer).getUint32(0, true);
    const data = JSON.parse(new TextDecoder().decode(all.subarray(4, 4 + size)));
    data.blob = all.subarray(4 + size);
    return data;
  }

  let P;
  try {
    P = await load();
  } catch (e) {
    doc.body.appendChild(el("div", "", "")).id = "fatal";
    doc.getElementById("fatal").textContent = "This page's data could not be read: " + e;
    doc.documentElement.dataset.ready = "error";
    return;
  }

  // ---- rows and sections -------------------------------------------------------------------
  const R = P.rows, N = R.off.length, FIRST = R.first;
  for (let i = 0, end = 0, node = 0; i < N; i++) {
    R.off[i] += end;
    end = R.off[i] + R.len[i];
    node = R.node[i] += node;
  }
  const isBits = R.bits ? (i) => R.bits[i] !== null && !(R.bit[i] === 0 && R.bits[i] === 8 * R.len[i]) : () => false;
  let taken = 0;
  const secs = P.sections.map((s, n) => {
    const chunks = s.chunks.map(([start, length]) => {
      const bytes = P.blob.subarray(taken, taken + length);
      taken += length;
      return { start, end: start + length, bytes };
    });
    return { n, title: s.title, size: s.size, text: s.text, chunks, segs: [], bitOwner: new Map(), hasBits: false };
  });
  // Which row owns each byte: the innermost region (regions nest in text maps), as segments.
  for (const sec of secs) {
    const list = [];
    for (let i = 0; i < N; i++) {
      if (R.sec[i] !== sec.n) continue;
      if (isBits(i)) {
        sec.hasBits = true;
        const startBit = R.off[i] * 8 + R.bit[i];
        const count = Math.min(R.bits[i], 1 << 16);
        for (let k = 0; k < count; k++) {
          const g = startBit + k, byte = g >> 3;
          let owners = sec.bitOwner.get(byte);
          if (!owners) sec.bitOwner.set(byte, (owners = new Int32Array(8).fill(-1)));
          owners[g & 7] = i;
        }
      } else if (R.len[i] > 0) {
        list.push(i);
      }
    }
    list.sort((a, b) => R.off[a] - R.off[b] || R.len[b] - R.len[a] || a - b);
    const stack = [];
    let pos = 0;
    const flush = (x) => {
      while (pos < x) {
        while (stack.length && R.off[stack[stack.length - 1]] + R.len[stack[stack.length - 1]] <= pos) stack.pop();
        if (!stack.length) { pos = x; return; }
        const top = stack[stack.length - 1];
        const end = Math.min(x, R.off[top] + R.len[top]);
        const last = sec.segs[sec.segs.length - 1];
        if (last && last[2] === top && last[1] === pos) last[1] = end;
        else sec.segs.push([pos, end, top]);
        pos = end;
      }
    };
    for (const i of list) {
      flush(R.off[i]);
      pos = Math.max(pos, R.off[i]);
      stack.push(i);
    }
    flush(Infinity);
  }
  function ownerOf(sec, off, bit) {
    const owners = sec.bitOwner.get(off);
    if (owners) {
      if (bit !== undefined && owners[bit] >= 0) return owners[bit];
      for (const o of owners) if (o >= 0) return o;
    }
    const segs = sec.segs;
    let lo = 0, hi = segs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1, s = segs[mid];
      if (off < s[0]) hi = mid - 1;
      else if (off >= s[1]) lo = mid + 1;
      else return s[2];
    }
    return -1;
  }

  // ---- colours: one hue per type, two shades so that neighbours differ ------------------------
  const hues = P.types.map((t) => {
    let h = 2166136261;
    for (let k = 0; k < t.length; k++) h = Math.imul(h ^ t.charCodeAt(k), 16777619);
    return (h >>> 0) % 360;
  });
  const colour = (i) => (i < 0 ? "" : `hsl(${hues[R.type[i]]} 62% ${i % 2 ? 80 : 87}%)`);
  const bitColour = (i, one) => (i < 0 ? "#fff" : `hsl(${hues[R.type[i]]} 55% ${one ? 38 : 72}%)`);

  // ---- page structure ----------------------------------------------------------------------
  const header = doc.body.appendChild(el("header"));
  header.appendChild(el("h1", "", P.title));
  const meta = [P.format, `${N.toLocaleString("en")} regions`];
  if (P.sections.length) meta.push(`${P.sections[0].size.toLocaleString("en")} bytes`);
  if (secs.some((s) => s.hasBits)) meta.push("bit fields: bit 0 first");
  header.appendChild(el("span", "meta", meta.join(" \u00b7 ")));
  const pageNames = (count) => {
    const name = P.name, dot = name.lastIndexOf(".");
    const stem = dot > 0 ? name.slice(0, dot) : name, ext = dot > 0 ? name.slice(dot) : ".html";
    return Array.from({ length: count }, (_, k) => (k ? `${stem}.${k + 1}${ext}` : name));
  };
  const pages = P.pages || null, files = pages ? pageNames(pages.length) : [P.name];
  if (pages) {
    const nav = header.appendChild(el("span", "meta"));
    if (P.page > 0) { const a = nav.appendChild(el("a", "", "\u2190 previous")); a.href = files[P.page - 1]; nav.append(" "); }
    const select = nav.appendChild(el("select"));
    select.id = "pages";
    pages.forEach(([first, count, lo, hi], k) => {
      const range = lo >= 0 ? `, bytes ${lo}\u2013${hi}` : "";
      const o = select.appendChild(el("option", "", `page ${k + 1} of ${pages.length}: regions ${first}\u2013${first + count - 1}${range}`));
      o.value = String(k);
      if (k === P.page) o.selected = true;
    });
    select.addEventListener("change", () => { location.href = files[Number(select.value)]; });
    if (P.page < pages.length - 1) { nav.append(" "); const a = nav.appendChild(el("a", "", "next \u2192")); a.href = files[P.page + 1]; }
  }
  const search = header.appendChild(el("input"));
  search.id = "search";
  search.placeholder = "search: a path (text in it) or an offset (123, 0x7b)";
  search.setAttribute("aria-label", "search by path or offset");
  const status = header.appendChild(el("span"));
  status.id = "status";
  if (P.error) {
    const e = doc.body.appendChild(el("div", "", P.error.message));
    e.id = "error";
    e.title = "show the byte where the data stops being sound";
    e.addEventListener("click", () => {
      if (P.error.row !== null) select(P.error.row - FIRST);
      else if (P.error.offset !== null) gotoOffset(P.error.offset, true);
    });
  }
  if (P.notes.length) {
    const n = doc.body.appendChild(el("div", "", P.notes.join("\n")));
    n.id = "notes";
  }
  const main = doc.body.appendChild(el("main"));
  const hexPane = main.appendChild(el("div"));
  hexPane.id = "hex";
  if (secs.some((s) => s.text)) hexPane.classList.add("text");
  const spacer = hexPane.appendChild(el("div", "spacer"));
  const treePane = main.appendChild(el("div"));
  treePane.id = "tree";

  // ---- the hex (or text) pane's lines, rendered as they scroll into view --------------------
  const lines = [];
  for (const sec of secs) {
    lines.push({ kind: "title", sec, text: `${sec.title} (${sec.size.toLocaleString("en")} bytes)` });
    let at = 0;
    const gap = (from, to) => { if (to > from) lines.push({ kind: "gap", sec, text: `\u22ef ${(to - from).toLocaleString("en")} bytes not shown here (${hex8(from)}\u2013${hex8(to - 1)}) \u22ef` }); };
    for (const c of sec.chunks) {
      gap(at, c.start);
      if (sec.text) {
        let s = c.start;
        for (let k = c.start; k < c.end; k++) {
          const b = c.bytes[k - c.start];
          const cont = (x) => x < c.end && (c.bytes[x - c.start] & 0xc0) === 0x80;
          if (b === 10 || k + 1 === c.end || (k + 1 - s >= 96 && !cont(k + 1))) {
            lines.push({ kind: "text", sec, off: s, end: k + 1, chunk: c });
            s = k + 1;
          }
        }
      } else {
        for (let off = c.start; off < c.end; off += LINE) lines.push({ kind: sec.hasBits ? "bits" : "hex", sec, off, chunk: c });
      }
      at = c.end;
    }
    gap(at, sec.size);
  }
  const tops = new Float64Array(lines.length + 1);
  lines.forEach((l, k) => { tops[k + 1] = tops[k] + H[l.kind]; });
  spacer.style.height = tops[lines.length] + "px";
  const secLines = secs.map(() => []);
  lines.forEach((l, k) => { if (l.off !== undefined) secLines[l.sec.n].push(k); });
  function lineOf(secN, off) {
    const list = secLines[secN];
    let lo = 0, hi = list.length - 1, best = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (lines[list[mid]].off <= off) { best = list[mid]; lo = mid + 1; } else hi = mid - 1;
    }
    return best;
  }

  let selected = -1, hovered = -1;
  const inRow = (i, secN, off, bit) => {
    if (i < 0 || R.sec[i] !== secN) return false;
    if (isBits(i) && bit !== undefined) {
      const g = off * 8 + bit, s = R.off[i] * 8 + R.bit[i];
      return g >= s && g < s + R.bits[i];
    }
    return off >= R.off[i] && off < R.off[i] + Math.max(R.len[i], 1);
  };
  const errAt = P.error && P.error.offset !== null ? P.error.offset : -1, errSec = P.error ? P.error.section : -1;
  function mark(e, secN, off, bit) {
    e.classList.toggle("sel", inRow(selected, secN, off, bit));
    e.classList.toggle("hov", inRow(hovered, secN, off, bit));
  }
  function restyle() {
    for (const e of hexPane.querySelectorAll("span[data-o]")) mark(e, Number(e.dataset.s), Number(e.dataset.o));
    for (const e of hexPane.querySelectorAll("i.bit[data-o]")) mark(e, Number(e.dataset.s), Number(e.dataset.o), Number(e.dataset.k));
  }
  function hexLine(l) {
    const d = el("div", "line" + (l.kind === "bits" ? " bitline" : ""));
    d.appendChild(el("span", "off", hex8(l.off)));
    const asc = el("span", "asc");
    for (let off = l.off; off < l.off + LINE; off++) {
      const v = off < l.chunk.end ? l.chunk.bytes[off - l.chunk.start] : -1;
      const cell = d.appendChild(el("span", "b"));
      const ch = asc.appendChild(el("span", "c", v < 0 ? " " : v >= 32 && v < 127 ? String.fromCharCode(v) : "."));
      if (v < 0) { cell.textContent = "  "; continue; }
      const owner = ownerOf(l.sec, off);
      cell.dataset.s = ch.dataset.s = String(l.sec.n);
      cell.dataset.o = ch.dataset.o = String(off);
      cell.style.backgroundColor = ch.style.backgroundColor = colour(owner);
      if (l.kind === "bits") {
        cell.appendChild(el("span", "hx", v.toString(16).padStart(2, "0")));
        const strip = cell.appendChild(el("span", "bits"));
        const owners = l.sec.bitOwner.get(off);
        if (owners) {
          for (let k = 0; k < 8; k++) {
            const one = (v >> k) & 1;
            const bitEl = strip.appendChild(el("i", "bit" + (one ? " one" : "")));
            bitEl.dataset.k = String(k);
            bitEl.title = `bit ${k}: ${one}`;
            bitEl.style.backgroundColor = bitColour(owners[k], one);
            bitEl.dataset.s = String(l.sec.n);
            bitEl.dataset.o = String(off);
            mark(bitEl, l.sec.n, off, k);
          }
        }
      } else {
        cell.textContent = v.toString(16).padStart(2, "0");
      }
      for (const e of [cell, ch]) {
        mark(e, l.sec.n, off);
        if (l.sec.n === errSec && off === errAt) e.classList.add("err");
      }
    }
    d.appendChild(asc);
    return d;
  }
  const utf8 = new TextDecoder("utf-8");
  function textLine(l) {
    const d = el("div", "line");
    d.appendChild(el("span", "off", hex8(l.off)));
    let s = l.off;
    while (s < l.end) {
      const owner = ownerOf(l.sec, s);
      let e = s + 1;
      while (e < l.end && ownerOf(l.sec, e) === owner) e++;
      let shown = utf8.decode(l.chunk.bytes.subarray(s - l.chunk.start, e - l.chunk.start));
      shown = shown.replace(/\n$/, "").replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "\u00b7");
      if (!shown) { s = e; continue; }
      const span = d.appendChild(el("span", "t", shown));
      span.dataset.s = String(l.sec.n);
      span.dataset.o = String(s);
      span.style.backgroundColor = colour(owner);
      mark(span, l.sec.n, s);
      if (l.sec.n === errSec && errAt >= s && errAt < e) span.classList.add("err");
      s = e;
    }
    return d;
  }
  const shownLines = new Map();
  function renderHex(force) {
    const top = hexPane.scrollTop, bottom = top + hexPane.clientHeight;
    let lo = 0, hi = lines.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (tops[mid + 1] <= top) lo = mid + 1; else hi = mid; }
    const first = Math.max(0, lo - SHOW / 4);
    let last = lo;
    while (last < lines.length && tops[last] < bottom) last++;
    last = Math.min(lines.length, last + SHOW / 4);
    for (const [k, node] of shownLines) {
      if (force || k < first || k >= last) { node.remove(); shownLines.delete(k); }
    }
    for (let k = first; k < last; k++) {
      if (shownLines.has(k)) continue;
      const l = lines[k];
      let d;
      if (l.kind === "hex" || l.kind === "bits") d = hexLine(l);
      else if (l.kind === "text") d = textLine(l);
      else d = el("div", "line " + l.kind, l.text);
      d.style.top = tops[k] + "px";
      hexPane.appendChild(d);
      shownLines.set(k, d);
    }
  }
  hexPane.addEventListener("scroll", () => renderHex(false));
  window.addEventListener("resize", () => renderHex(false));

  // ---- the tree of paths --------------------------------------------------------------------
  const nodeParent = P.nodes.parent, nodeStep = P.nodes.step, NN = nodeParent.length;
  const kids = Array.from({ length: NN }, () => []), rowsOf = Array.from({ length: NN }, () => []);
  const roots = [];
  nodeParent.forEach((p, n) => (p < 0 ? roots : kids[p]).push(n));
  for (let i = 0; i < N; i++) rowsOf[R.node[i]].push(i);
  const paths = new Array(NN);
  const pathOf = (n) => {
    if (paths[n] === undefined) paths[n] = (nodeParent[n] < 0 ? "" : pathOf(nodeParent[n])) + nodeStep[n];
    return paths[n];
  };
  const depthOf = (n) => { let d = 0; while (nodeParent[n] >= 0) { n = nodeParent[n]; d++; } return d; };
  const nodeEl = new Map(), rowEl = new Map(), open = new Set(), filled = new Map();

  function rowLine(i, label) {
    const line = el("div", "nl row");
    line.dataset.r = String(FIRST + i);
    line.appendChild(el("span", "tw", ""));
    const sw = line.appendChild(el("span", "sw"));
    sw.style.backgroundColor = colour(i);
    if (label !== undefined) line.appendChild(el("span", "step", label));
    line.appendChild(el("span", "ty", P.types[R.type[i]]));
    if (R.note[i]) line.appendChild(el("span", "val", R.note[i]));
    const where = isBits(i) ? `@${hex8(R.off[i])}.${R.bit[i]} (${R.bits[i]} bits)` : `@${hex8(R.off[i])} (${R.len[i]} bytes)`;
    line.appendChild(el("span", "at", (R.sec[i] ? `[${P.sections[R.sec[i]].title}] ` : "") + where));
    line.title = pathOf(R.node[i]);
    rowEl.set(i, line);
    if (i === selected) line.classList.add("sel");
    return line;
  }
  function makeNode(n) {
    const box = el("div", "node" + (nodeParent[n] < 0 ? " top" : ""));
    const rows = rowsOf[n], single = rows.length === 1 && kids[n].length === 0;
    let line;
    if (single) {
      line = rowLine(rows[0], nodeStep[n]);
    } else {
      line = el("div", "nl");
      line.appendChild(el("span", "tw", open.has(n) ? "\u25be" : "\u25b8"));
      line.appendChild(el("span", "step", nodeStep[n] || "(root)"));
      const what = [];
      if (rows.length) what.push(`${rows.length} region${rows.length === 1 ? "" : "s"}`);
      if (kids[n].length) what.push(`${kids[n].length} item${kids[n].length === 1 ? "" : "s"}`);
      line.appendChild(el("span", "at", what.join(", ")));
      line.title = pathOf(n);
      line.addEventListener("click", () => toggle(n));
    }
    box.appendChild(line);
    box.appendChild(el("div", "kids"));
    nodeEl.set(n, box);
    if (open.has(n)) fill(n, BATCH);
    return box;
  }
  function fill(n, upTo) {
    const box = nodeEl.get(n), holder = box.lastChild;
    const items = [...rowsOf[n].map((i) => ["r", i]), ...kids[n].map((k) => ["n", k])];
    if (rowsOf[n].length === 1 && kids[n].length === 0) return;
    let done = filled.get(n) || 0;
    const more = holder.querySelector(":scope > .more");
    if (more) more.remove();
    const stop = Math.min(items.length, Math.max(upTo, done));
    for (; done < stop; done++) {
      const [kind, x] = items[done];
      holder.appendChild(kind === "r" ? rowLine(x) : makeNode(x));
    }
    filled.set(n, done);
    if (done < items.length) {
      const b = holder.appendChild(el("button", "more", `show ${Math.min(BATCH, items.length - done)} more of ${items.length - done}`));
      b.addEventListener("click", (ev) => { ev.stopPropagation(); fill(n, done + BATCH); });
    }
  }
  function toggle(n, force) {
    const box = nodeEl.get(n);
    const want = force !== undefined ? force : !open.has(n);
    if (want) open.add(n); else open.delete(n);
    const tw = box.firstChild.querySelector(".tw");
    if (tw && !(rowsOf[n].length === 1 && kids[n].length === 0)) tw.textContent = want ? "\u25be" : "\u25b8";
    box.lastChild.style.display = want ? "" : "none";
    if (want && !filled.has(n)) fill(n, BATCH);
  }
  for (let n = 0; n < NN; n++) if (kids[n].length && (nodeParent[n] < 0 || (depthOf(n) < 3 && kids[n].length <= BATCH))) open.add(n);
  const rootItems = roots.slice(0, 5000);
  for (const n of rootItems) treePane.appendChild(makeNode(n));
  if (roots.length > rootItems.length) treePane.appendChild(el("div", "at", `${roots.length - rootItems.length} more top-level paths: search for them`));

  function reveal(i) {
    const chain = [];
    for (let n = R.node[i]; n >= 0; n = nodeParent[n]) chain.unshift(n);
    if (!nodeEl.has(chain[0])) return null;
    for (let k = 0; k < chain.length; k++) {
      const n = chain[k];
      if (k === chain.length - 1 && rowsOf[n].length === 1 && kids[n].length === 0) break;
      toggle(n, true);
      const items = [...rowsOf[n].map((r) => ["r", r]), ...kids[n].map((x) => ["n", x])];
      const want = k + 1 < chain.length ? items.findIndex(([t, x]) => t === "n" && x === chain[k + 1]) : items.findIndex(([t, x]) => t === "r" && x === i);
      if (want >= (filled.get(n) || 0)) fill(n, want + 1);
    }
    return rowEl.get(i) || null;
  }

  // ---- selection and hover, both ways --------------------------------------------------------
  function scrollHexTo(i) {
    const k = lineOf(R.sec[i], R.off[i]);
    if (k < 0) return;
    const y = tops[k], h = hexPane.clientHeight;
    if (y < hexPane.scrollTop || y + H[lines[k].kind] > hexPane.scrollTop + h) hexPane.scrollTop = Math.max(0, y - h / 3);
  }
  function select(i, from) {
    const old = rowEl.get(selected);
    if (old) old.classList.remove("sel");
    selected = i;
    if (i < 0) { restyle(); return; }
    if (from !== "hex") scrollHexTo(i);
    const line = reveal(i);
    if (line) {
      line.classList.add("sel");
      if (from !== "tree") line.scrollIntoView({ block: "nearest" });
    }
    renderHex(false);
    restyle();
    status.textContent = `${pathOf(R.node[i])}  ${P.types[R.type[i]]}`;
  }
  function hover(i) {
    if (i === hovered) return;
    const old = rowEl.get(hovered);
    if (old) old.classList.remove("hov");
    hovered = i;
    const line = rowEl.get(i);
    if (line) line.classList.add("hov");
    restyle();
  }
  const cellOwner = (t) => {
    const cell = t.closest("[data-o]");
    if (!cell) return -1;
    const sec = secs[Number(cell.dataset.s)], off = Number(cell.dataset.o);
    const bit = t.classList.contains("bit") ? Number(t.dataset.k) : undefined;
    return ownerOf(sec, off, bit);
  };
  hexPane.addEventListener("click", (ev) => { const i = cellOwner(ev.target); if (i >= 0) select(i, "hex"); });
  hexPane.addEventListener("mouseover", (ev) => hover(cellOwner(ev.target)));
  hexPane.addEventListener("mouseleave", () => hover(-1));
  treePane.addEventListener("click", (ev) => {
    const line = ev.target.closest(".row");
    if (line) select(Number(line.dataset.r) - FIRST, "tree");
  });
  treePane.addEventListener("mouseover", (ev) => {
    const line = ev.target.closest(".row");
    hover(line ? Number(line.dataset.r) - FIRST : -1);
  });

  // ---- search by offset or path -------------------------------------------------------------
  function gotoOffset(off, exact) {
    let i = ownerOf(secs[0], off);
    if (i < 0 && !exact) {
      for (let k = 0; k < N; k++) if (R.sec[k] === 0 && R.off[k] + R.len[k] > off) { i = k; break; }
    }
    if (i >= 0) { select(i); status.textContent = `byte ${off} (${hex8(off)}): ` + status.textContent; return true; }
    if (pages) {
      const k = pages.findIndex(([, , lo, hi]) => lo >= 0 && off >= lo && off < hi);
      if (k >= 0 && k !== P.page) { location.href = files[k] + "#offset=" + off; return true; }
    }
    const k = lineOf(0, off);
    if (k >= 0) hexPane.scrollTop = tops[k];
    status.textContent = `no region holds byte ${off} on this page`;
    return false;
  }
  let lastQuery = "", matches = [], at = -1;
  // A path search goes on to the next pages (through #find=TEXT&from=PAGE) when this page has
  // no further match, and stops when it comes back round to the page it started from.
  function findOn(k, q, from) { location.href = files[k] + "#find=" + encodeURIComponent(q) + "&from=" + from; }
  function findPath(q, from) {
    if (q !== lastQuery) {
      lastQuery = q;
      matches = [];
      for (let i = 0; i < N; i++) if (pathOf(R.node[i]).includes(q)) matches.push(i);
      at = -1;
    }
    const next = pages ? (P.page + 1) % pages.length : -1;
    if (!matches.length) {
      if (pages && next !== from) {
        status.textContent = `no path on this page holds \u201c${q}\u201d: looking on page ${next + 1}`;
        findOn(next, q, from);
      } else {
        status.textContent = `no path${pages ? " on any page" : " here"} holds \u201c${q}\u201d`;
      }
      return;
    }
    if (pages && at === matches.length - 1 && pages.length > 1) { findOn(next, q, P.page); return; }
    at = (at + 1) % matches.length;
    select(matches[at]);
    status.textContent = `${at + 1} of ${matches.length}${pages ? " on this page" : ""}: ${pathOf(R.node[matches[at]])}`;
  }
  function runSearch() {
    const q = search.value.trim();
    if (!q) return;
    const number = /^(?:0x[0-9a-f]+|\d+)$/i.test(q) ? Number(q) : NaN;
    if (!Number.isNaN(number)) { gotoOffset(number, false); return; }
    findPath(q, pages ? P.page : -1);
  }
  search.addEventListener("keydown", (ev) => { if (ev.key === "Enter") runSearch(); });

  renderHex(true);
  function follow() {
    const find = /^#find=([^&]*)&from=(\d+)$/.exec(location.hash);
    if (find) {
      try { search.value = decodeURIComponent(find[1]); } catch (e) { return; }
      findPath(search.value, Number(find[2]));
      return;
    }
    const hash = /^#(offset|row)=(\d+)$/.exec(location.hash);
    if (hash && hash[1] === "offset") gotoOffset(Number(hash[2]), false);
    else if (hash && Number(hash[2]) - FIRST >= 0 && Number(hash[2]) - FIRST < N) select(Number(hash[2]) - FIRST);
  }
  follow();
  window.addEventListener("hashchange", follow);
  doc.documentElement.dataset.ready = "1";
})();
