// Ed25519 signature verification (RFC 8032, section 5.1.7) for the record page.
//
// WHY two ways: WebCrypto's own Ed25519 is used where the browser has it; older
// browsers (and a phone that is a few years old) lack it, so a small verifier on
// BigInt does the curve arithmetic here, with SHA-512 from WebCrypto. Verifying
// needs no secret, so a slow or simple implementation leaks nothing.
"use strict";

window.TaflEd25519 = (function () {
  const P = 2n ** 255n - 19n;
  const L = 2n ** 252n + 27742317777372353535851937790883648493n;

  function mod(a, m = P) {
    const r = a % m;
    return r >= 0n ? r : r + m;
  }

  function power(base, exp, m = P) {
    let result = 1n;
    let b = mod(base, m);
    let e = exp;
    while (e > 0n) {
      if (e & 1n) result = (result * b) % m;
      b = (b * b) % m;
      e >>= 1n;
    }
    return result;
  }

  const inv = (x) => power(x, P - 2n);
  const D = mod(-121665n * inv(121666n));
  const SQRT_M1 = power(2n, (P - 1n) / 4n);

  // Points in extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z, x*y = T/Z.
  function add(p, q) {
    const a = mod((p[1] - p[0]) * (q[1] - q[0]));
    const b = mod((p[1] + p[0]) * (q[1] + q[0]));
    const c = mod(2n * D * p[3] * q[3]);
    const d = mod(2n * p[2] * q[2]);
    const e = b - a, f = d - c, g = d + c, h = b + a;
    return [mod(e * f), mod(g * h), mod(f * g), mod(e * h)];
  }

  function multiply(point, scalar) {
    let result = [0n, 1n, 1n, 0n];
    let addend = point;
    let s = scalar;
    while (s > 0n) {
      if (s & 1n) result = add(result, addend);
      addend = add(addend, addend);
      s >>= 1n;
    }
    return result;
  }

  function littleEndian(bytes) {
    let n = 0n;
    for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]);
    return n;
  }

  // The point a 32-byte encoding names, or null when it names none.
  function decodePoint(bytes) {
    if (bytes.length !== 32) return null;
    const copy = Uint8Array.from(bytes);
    const sign = copy[31] >> 7;
    copy[31] &= 0x7f;
    const y = littleEndian(copy);
    if (y >= P) return null;
    const u = mod(y * y - 1n);
    const v = mod(D * y * y + 1n);
    let x = mod(u * power(v, 3n) * power(u * power(v, 7n), (P - 5n) / 8n));
    const vx2 = mod(v * x * x);
    if (vx2 === mod(-u)) x = mod(x * SQRT_M1);
    else if (vx2 !== u) return null;
    if (x === 0n && sign === 1) return null;
    if (Number(x & 1n) !== sign) x = P - x;
    return [x, y, 1n, mod(x * y)];
  }

  function encodePoint(point) {
    const zi = inv(point[2]);
    const x = mod(point[0] * zi);
    let y = mod(point[1] * zi);
    const out = new Uint8Array(32);
    for (let i = 0; i < 32; i++) {
      out[i] = Number(y & 0xffn);
      y >>= 8n;
    }
    out[31] |= Number(x & 1n) << 7;
    return out;
  }

  const BASE = decodePoint(Uint8Array.from(
    [0x58, ...new Array(31).fill(0x66)]));

  function concat(...parts) {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  // Our own verifier: true when `signature` is `publicKey`'s over `message`.
  async function verifyWithBigInt(publicKey, signature, message) {
    if (signature.length !== 64) return false;
    const A = decodePoint(publicKey);
    const R = signature.slice(0, 32);
    const S = littleEndian(signature.slice(32));
    if (A === null || decodePoint(R) === null || S >= L) return false;
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-512", concat(R, publicKey, message)));
    const k = mod(littleEndian(digest), L);
    const negA = [mod(-A[0]), A[1], A[2], mod(-A[3])];
    const check = encodePoint(add(multiply(BASE, S), multiply(negA, k)));
    return check.every((b, i) => b === R[i]);
  }

  async function verifyWithWebCrypto(publicKey, signature, message) {
    const key = await crypto.subtle.importKey("raw", publicKey, { name: "Ed25519" }, false, ["verify"]);
    return crypto.subtle.verify({ name: "Ed25519" }, key, signature, message);
  }

  // Which verifier this browser uses: "webcrypto" when it offers Ed25519, else "bigint".
  async function available() {
    if (!window.crypto || !crypto.subtle) return null;
    try {
      await crypto.subtle.importKey("raw", encodePoint(BASE), { name: "Ed25519" }, false, ["verify"]);
      return "webcrypto";
    } catch (e) {
      return "bigint";
    }
  }

  // `how`: "webcrypto", "bigint", or undefined for the best this browser has.
  async function verify(publicKey, signature, message, how) {
    const use = how || (await available());
    if (use === "webcrypto") return verifyWithWebCrypto(publicKey, signature, message);
    if (use === "bigint") return verifyWithBigInt(publicKey, signature, message);
    throw new Error("this browser cannot check signatures (open the page over https)");
  }

  return { verify, available, verifyWithBigInt, verifyWithWebCrypto };
})();
