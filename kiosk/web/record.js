// The record page: read the game record from the URL fragment, check its signature,
// replay it move by move on a drawn board, and show the visitor's rewards.
//
// The record's format is kiosk/record.py's (read that module's docstring first);
// the tables this script needs (variants, start positions, code lists) come from
// variants.js, which is generated from the engine. The record carries every
// capture, so this page replays any variant without rules of its own.
"use strict";

window.TaflRecord = (function () {
  const DATA = window.TAFL_DATA;
  const NEIGHBOURS = [[1, 0], [0, 1], [-1, 0], [0, -1]];     // (rank, file): north, east, south, west
  const FILES = "abcdefghijklmnopqrstuvwxyz";
  const SVG = "http://www.w3.org/2000/svg";

  // ---- bytes and bits ------------------------------------------------------------------
  function base32Decode(text) {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    const clean = text.trim().toUpperCase().replace(/=+$/, "");
    const out = [];
    let buffer = 0, bits = 0;
    for (const ch of clean) {
      const v = alphabet.indexOf(ch);
      if (v < 0) throw new Error("the code is not base32 text");
      buffer = (buffer << 5) | v;
      bits += 5;
      if (bits >= 8) {
        bits -= 8;
        out.push((buffer >> bits) & 0xff);
      }
    }
    return Uint8Array.from(out);
  }

  function base64urlDecode(text) {
    const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
    const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  }

  class BitReader {
    constructor(bytes) {
      this.bytes = bytes;
      this.pos = 0;
    }
    get left() {
      return this.bytes.length * 8 - this.pos;
    }
    get(width) {
      if (width > this.left) throw new Error("the record ends too early");
      let v = 0;
      for (let i = 0; i < width; i++) {
        const byte = this.bytes[(this.pos + i) >> 3];
        v = v * 2 + ((byte >> (7 - ((this.pos + i) & 7))) & 1);
      }
      this.pos += width;
      return v;
    }
    text(lengthBits) {
      const n = this.get(lengthBits);
      const bytes = new Uint8Array(n);
      for (let i = 0; i < n; i++) bytes[i] = this.get(8);
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    }
  }

  function pick(table, index, what) {
    if (index >= table.length) throw new Error(`unknown ${what} code ${index}`);
    return table[index];
  }

  // ---- the record ----------------------------------------------------------------------
  function unpack(body) {
    const r = new BitReader(body);
    const version = r.get(4);
    if (version !== DATA.format) throw new Error(`record format ${version}: this page reads format ${DATA.format}`);
    const variant = pick(DATA.variantCodes, r.get(3), "variant");
    const spec = DATA.variants[variant];
    let combos = 1;
    for (const [, values] of spec.options) combos *= values.length;
    let number = r.get(combos > 1 ? (combos - 1).toString(2).length : 0);
    const options = {};
    for (let i = spec.options.length - 1; i >= 0; i--) {
      const [key, values] = spec.options[i];
      options[key] = values[number % values.length];
      number = Math.floor(number / values.length);
    }
    if (number) throw new Error("the record's options are out of range");
    const rec = { variant, options, size: spec.size };
    rec.mode = pick(DATA.modes, r.get(2), "mode");
    rec.visitorSide = DATA.sides[r.get(1)];
    rec.level = DATA.levels[r.get(2)];
    rec.result = pick(DATA.results, r.get(2), "result");
    rec.winner = pick(DATA.winners, r.get(2), "winner");
    const reason = r.get(4);
    rec.reason = reason === DATA.freeReason ? r.text(6) : pick(DATA.reasons, reason, "reason");
    rec.ended = new Date(Date.parse(DATA.epoch) + r.get(32) * 1000);
    rec.kiosk = r.text(5);
    const flags = r.get(3);
    rec.unlocks = {};
    DATA.unlocks.forEach((name, i) => { rec.unlocks[name] = Boolean(flags & (1 << i)); });
    const plies = r.get(12);
    rec.moves = [];
    for (let i = 0; i < plies; i++) rec.moves.push(readMove(r, spec.size));
    if (r.left >= 8 || r.get(r.left)) throw new Error("the record has bytes after its last move");
    return rec;
  }

  function readMove(r, size) {
    const from = r.get(7);
    const alongFile = r.get(1), stop = r.get(4);
    const fr = Math.floor(from / size), ff = from % size;
    const to = alongFile ? stop * size + ff : fr * size + stop;
    if (from >= size * size || stop >= size || to === from) throw new Error("the record holds a move off the board");
    const captures = [];
    if (r.get(1)) {
      const tr = Math.floor(to / size), tf = to % size;
      const mask = r.get(4);
      NEIGHBOURS.forEach(([dr, df], bit) => {
        if (mask & (8 >> bit)) {
          if (tr + dr < 0 || tr + dr >= size || tf + df < 0 || tf + df >= size) {
            throw new Error("the record holds a capture off the board");
          }
          captures.push((tr + dr) * size + tf + df);
        }
      });
      if (r.get(1)) {
        const n = r.get(4) + 1;
        for (let i = 0; i < n; i++) captures.push(r.get(7));
      }
    }
    captures.sort((a, b) => a - b);
    return { from, to, captures };
  }

  function squareName(sq, size) {
    return FILES[sq % size] + (Math.floor(sq / size) + 1);
  }

  function moveText(move, size) {
    return squareName(move.from, size) + "-" + squareName(move.to, size)
      + move.captures.map((c) => "x" + squareName(c, size)).join("");
  }

  // The start position as {square: "t" | "T" | "K"} from the OTN text ("/3ttttt3/.../", first rank first).
  function startPosition(rec) {
    const spec = DATA.variants[rec.variant];
    let text = spec.start;
    for (const [key, byValue] of Object.entries(spec.startBy)) text = byValue[rec.options[key]] || text;
    const ranks = text.split("/").filter((s) => s.length);
    const cells = {};
    ranks.forEach((rank, r) => {
      let file = 0;
      for (const m of rank.matchAll(/(\d+)|([tTK])/g)) {
        if (m[1]) file += Number(m[1]);
        else cells[r * spec.size + file++] = m[2];
      }
    });
    return cells;
  }

  // Every position of the game: positions[k] is the board after k plies.
  function replay(rec) {
    const positions = [startPosition(rec)];
    rec.moves.forEach((move, k) => {
      const cells = Object.assign({}, positions[positions.length - 1]);
      const piece = cells[move.from];
      if (!piece || cells[move.to]) throw new Error(`ply ${k + 1} (${moveText(move, rec.size)}) does not fit the board`);
      delete cells[move.from];
      cells[move.to] = piece;
      for (const c of move.captures) delete cells[c];
      positions.push(cells);
    });
    return positions;
  }

  // (record, body, signature) from a fragment; throws with a one-line reason.
  function parseFragment(fragment) {
    const text = fragment.replace(/^#/, "");
    if (!text) throw new Error("this address holds no game record (nothing after '#')");
    const raw = base32Decode(text);
    if (raw.length <= DATA.signatureBytes) throw new Error("the record is too short");
    const body = raw.slice(0, raw.length - DATA.signatureBytes);
    return { rec: unpack(body), body, signature: raw.slice(raw.length - DATA.signatureBytes) };
  }

  // {ok, kiosk, how, reason}: does a trusted key's signature cover the record?
  async function check(body, signature, how) {
    const keys = window.TAFL_TRUSTED_KEYS || [];
    if (!keys.length) return { ok: false, reason: "this page trusts no kiosk key yet" };
    const domain = new TextEncoder().encode(DATA.domain);
    const message = new Uint8Array(domain.length + body.length);
    message.set(domain);
    message.set(body, domain.length);
    const using = how || (await window.TaflEd25519.available());
    for (const entry of keys) {
      let key;
      try {
        key = base64urlDecode(entry.key);
      } catch (e) {
        continue;
      }
      if (key.length === 32 && await window.TaflEd25519.verify(key, signature, message, using)) {
        return { ok: true, kiosk: entry.kiosk, how: using };
      }
    }
    return { ok: false, how: using, reason: "the signature matches no trusted kiosk: the record was changed or made elsewhere" };
  }

  // ---- drawing -------------------------------------------------------------------------
  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  const rgb = (c) => `rgb(${c[0]},${c[1]},${c[2]})`;

  function drawBoard(svg, rec, cells, last, look) {
    const n = rec.size;
    const spec = DATA.variants[rec.variant];
    const cell = 40;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute("viewBox", `0 0 ${n * cell + 24} ${n * cell + 24}`);
    const defs = el("defs", {}, svg);
    for (const [name, colour] of Object.entries(look.colours)) {
      const grad = el("radialGradient", { id: `shade-${name}`, cx: "35%", cy: "30%", r: "75%" }, defs);
      el("stop", { offset: "0%", "stop-color": "#ffffff", "stop-opacity": "0.85" }, grad);
      el("stop", { offset: "35%", "stop-color": rgb(colour) }, grad);
      el("stop", { offset: "100%", "stop-color": rgb(colour.map((v) => Math.round(v * 0.45))) }, grad);
    }
    const board = el("g", { transform: "translate(24,0)" }, svg);
    const special = new Set([spec.throne, ...spec.corners].filter((s) => s !== null));
    const camps = new Set(spec.camps);
    for (let sq = 0; sq < n * n; sq++) {
      const r = Math.floor(sq / n), f = sq % n;
      const x = f * cell, y = (n - 1 - r) * cell;         // rank 1 at the bottom
      let fill = (r + f) % 2 ? "#d9b77e" : "#e8cc98";
      if (camps.has(sq)) fill = "#c49a5c";
      if (special.has(sq)) fill = "#9a6b3a";
      if (last && (sq === last.from || sq === last.to)) fill = "#8fc4e6";
      el("rect", { x, y, width: cell, height: cell, fill, stroke: "#7a5a30", "stroke-width": 1,
                   "data-square": squareName(sq, n) }, board);
      if (special.has(sq)) {
        el("path", { d: `M${x + 8} ${y + 8}L${x + cell - 8} ${y + cell - 8}M${x + cell - 8} ${y + 8}L${x + 8} ${y + cell - 8}`,
                     stroke: "#5a3a18", "stroke-width": 2 }, board);
      }
    }
    for (const [sqText, piece] of Object.entries(cells)) {
      const sq = Number(sqText);
      const cx = (sq % n) * cell + cell / 2, cy = (n - 1 - Math.floor(sq / n)) * cell + cell / 2;
      const kind = piece === "t" ? "attacker" : piece === "T" ? "defender" : "king";
      const fill = look.shaded ? `url(#shade-${kind})` : rgb(look.colours[kind]);
      const g = el("g", { class: "piece", "data-square": squareName(sq, n), "data-piece": piece }, board);
      el("circle", { cx, cy, r: cell * 0.38, fill, stroke: "#141414", "stroke-width": 2 }, g);
      if (piece === "K") crown(g, cx, cy - 1, cell * 0.42, rgb(look.crown));
    }
    for (let i = 0; i < n; i++) {
      el("text", { x: i * cell + cell / 2 + 24, y: n * cell + 18, "text-anchor": "middle", class: "coord" }, svg)
        .textContent = FILES[i];
      el("text", { x: 12, y: (n - 1 - i) * cell + cell / 2 + 5, "text-anchor": "middle", class: "coord" }, svg)
        .textContent = String(i + 1);
    }
  }

  function crown(parent, cx, cy, w, colour) {
    const h = w * 0.6, x = cx - w / 2, y = cy - h / 2;
    el("path", {
      d: `M${x} ${y + h}L${x} ${y + h * 0.25}L${x + w * 0.25} ${y + h * 0.6}L${cx} ${y}L${x + w * 0.75} ${y + h * 0.6}`
        + `L${x + w} ${y + h * 0.25}L${x + w} ${y + h}Z`,
      fill: colour, stroke: "#141414", "stroke-width": 1.5, class: "crown",
    }, parent);
  }

  // The visitor's face as the kiosk draws it (kiosk/ui/avatar.py): a Viking in a helmet, crowned after a Hard win.
  function drawAvatar(svg, unlocks) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute("viewBox", "0 0 200 200");
    const cx = 100, cy = 120, r = 50;
    el("circle", { cx, cy, r, fill: "rgb(233,190,150)" }, svg);
    el("polygon", { points: [[cx - r * 0.8, cy + r * 0.1], [cx, cy + r * 1.15], [cx + r * 0.8, cy + r * 0.1],
                             [cx + r * 0.5, cy + r * 0.45], [cx - r * 0.5, cy + r * 0.45]].map((p) => p.join(",")).join(" "),
                    fill: "rgb(196,120,50)" }, svg);
    for (const dx of [-0.35, 0.35]) el("circle", { cx: cx + r * dx, cy: cy - r * 0.05, r: 5, fill: "rgb(20,24,30)" }, svg);
    el("path", { d: `M${cx - r} ${cy - r * 0.4}A${r} ${r * 0.65} 0 0 1 ${cx + r} ${cy - r * 0.4}Z`, fill: "rgb(150,160,172)" }, svg);
    el("rect", { x: cx - r * 1.05, y: cy - r * 0.45, width: r * 2.1, height: r / 5, fill: "rgb(120,130,142)" }, svg);
    for (const side of [-1, 1]) {
      el("polygon", { points: [[cx + side * r * 0.85, cy - r * 0.55], [cx + side * r * 1.45, cy - r * 1.25],
                               [cx + side * r * 1.0, cy - r * 0.8]].map((p) => p.join(",")).join(" "),
                      fill: "rgb(245,235,210)" }, svg);
    }
    if (unlocks.crown) {
      const g = el("g", { id: "avatar-crown" }, svg);
      crown(g, cx, cy - r * 1.35, r * 1.1, rgb(DATA.schemes[0].crown));
    }
  }

  // ---- the page ------------------------------------------------------------------------
  const TITLES = { attackers: "attackers", defenders: "defenders" };
  const REASON_TEXT = {
    king_escaped: "the king escaped", king_captured: "the king was captured", edge_fort: "the king built an edge fort",
    encirclement: "the attackers surrounded all the defenders", repetition: "the same position came a third time",
    no_moves: "one side could not move", resigned: "the game was resigned", ended: "the game was stopped",
    abandoned: "the game was left", "idle timeout": "the game was left",
  };
  const UNLOCK_TEXT = { colours: "Piece colours", shaded: "3D pieces", crown: "A crown" };

  function describe(rec) {
    const sides = {};
    for (const side of DATA.sides) {
      sides[side] = rec.mode === "referee" ? "visitor" : rec.mode === "selfplay" ? "robot"
        : side === rec.visitorSide ? "visitor" : "robot";
    }
    const who = (side) => (sides[side] === "visitor" ? (rec.mode === "referee" ? "a visitor" : "you") : "the robot");
    let result;
    if (rec.winner) result = `${TITLES[rec.winner]} won (${who(rec.winner)})`;
    else result = rec.result === "draw" ? "a draw" : "no winner";
    const level = rec.level ? `, robot level ${rec.level}` : "";
    return {
      title: DATA.variants[rec.variant].title,
      players: `attackers: ${who("attackers")}, defenders: ${who("defenders")}${level}`,
      result: `${result}: ${REASON_TEXT[rec.reason] || rec.reason}`,
      played: `${rec.ended.toISOString().slice(0, 16).replace("T", " ")} UTC at kiosk ${rec.kiosk || "?"}`,
    };
  }

  function show(root) {
    const $ = (id) => root.querySelector("#" + id);
    const status = $("status");
    const params = new URLSearchParams(location.search);
    let parsed;
    try {
      parsed = parseFragment(location.hash);
    } catch (e) {
      status.dataset.state = "not-verified";
      status.textContent = "not verified: " + e.message;
      root.dataset.ready = "yes";
      return null;
    }
    const { rec, body, signature } = parsed;
    let positions = null, problem = null;
    try {
      positions = replay(rec);
    } catch (e) {
      problem = e.message;
    }
    const info = describe(rec);
    for (const key of Object.keys(info)) $(key).textContent = info[key];
    const scheme = DATA.schemes[rec.unlocks.colours ? 1 : 0];
    const look = { colours: { attacker: scheme.attacker, defender: scheme.defender, king: scheme.king },
                   crown: scheme.crown, shaded: rec.unlocks.shaded };
    drawAvatar($("avatar"), rec.unlocks);
    const list = $("rewards");
    list.textContent = "";
    for (const name of DATA.unlocks) {
      if (!rec.unlocks[name]) continue;
      const li = document.createElement("li");
      li.dataset.unlock = name;
      li.textContent = UNLOCK_TEXT[name];
      list.appendChild(li);
    }
    if (!list.children.length) list.textContent = "No rewards in this game: win against the robot to earn some.";
    const moves = $("moves");
    rec.moves.forEach((move, k) => {
      const li = document.createElement("li");
      li.textContent = moveText(move, rec.size);
      li.dataset.ply = String(k + 1);
      li.addEventListener("click", () => go(k + 1));
      moves.appendChild(li);
    });
    let ply = rec.moves.length;
    function go(k) {
      if (!positions) return;
      ply = Math.max(0, Math.min(rec.moves.length, k));
      drawBoard($("board"), rec, positions[ply], ply ? rec.moves[ply - 1] : null, look);
      $("ply").textContent = `move ${ply} of ${rec.moves.length}`;
      root.dataset.ply = String(ply);
      for (const li of moves.children) li.classList.toggle("current", Number(li.dataset.ply) === ply);
    }
    $("first").addEventListener("click", () => go(0));
    $("back").addEventListener("click", () => go(ply - 1));
    $("next").addEventListener("click", () => go(ply + 1));
    $("last").addEventListener("click", () => go(rec.moves.length));
    document.addEventListener("keydown", (e) => {
      if (e.key === "ArrowLeft") go(ply - 1);
      if (e.key === "ArrowRight") go(ply + 1);
    });
    go(ply);
    status.dataset.state = "checking";
    status.textContent = "checking the signature...";
    check(body, signature, params.get("verifier") || undefined).then((v) => {
      if (v.ok && positions) {
        status.dataset.state = "verified";
        status.textContent = `verified: played at kiosk ${v.kiosk || rec.kiosk}`;
      } else {
        status.dataset.state = "not-verified";
        status.textContent = "not verified: " + (problem || v.reason);
      }
      status.dataset.how = v.how || "";
      root.dataset.ready = "yes";
    }).catch((e) => {
      status.dataset.state = "not-verified";
      status.textContent = "not verified: " + e.message;
      root.dataset.ready = "yes";
    });
    return rec;
  }

  return { show, unpack, replay, parseFragment, moveText, base32Decode };
})();

window.addEventListener("DOMContentLoaded", () => window.TaflRecord.show(document.body));
window.addEventListener("hashchange", () => location.reload());
