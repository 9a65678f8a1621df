#!/usr/bin/env python3
"""Independent verifier of a Cartographer audit log, written from docs/audit.md alone.

Python standard library only (json, hashlib; Ed25519 from RFC 8032's reference arithmetic),
no Cartographer code. It checks what "The byte rule" section specifies:

  hash  = sha256(RFC 8785 JSON of the line without its top-level `hash` and `sig`), lower hex
  sig   = Ed25519 over the 64 ASCII bytes of `hash` (checked with --public-key)
  chain = first prev_hash "genesis", then each prev_hash = the previous entry's hash

plus the per-entry rules of "Verify and export": unique ids, no completion without its
attempt, a terminated last line, no unsigned entry after a signed one (with a key).

Usage: third-party-verify.py [--public-key HEX] FILE [FILE ...]
FILEs are the chain's segments in order (archived segments, then the live log).
Prints `ok: N entries` and exits 0, or prints `FILE:LINE: reason` per break and exits 1;
exit 2 on a usage error.
"""

import hashlib
import json
import math
import sys
from decimal import Decimal

# --- RFC 8785 (JCS) for JSON values as json.loads returns them -------------------------------


def jcs_number(value):
    """ECMAScript Number::toString (RFC 8785 section 3.2.2.3) of a JSON number."""
    if isinstance(value, bool):
        raise ValueError("not a number")
    f = float(value)  # JSON numbers are IEEE doubles for an ECMAScript reader
    if not math.isfinite(f):
        raise ValueError("non-finite number")
    if f == 0:
        return "0"  # also -0
    sign = "-" if f < 0 else ""
    # repr() is the shortest round-tripping digit string, as ECMAScript requires.
    _, digits_t, exp = Decimal(repr(abs(f))).as_tuple()
    digits = "".join(map(str, digits_t)).rstrip("0") or "0"
    k = len(digits)
    n = len("".join(map(str, digits_t))) + exp  # value = 0.digits × 10^n
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mant = digits if k == 1 else digits[0] + "." + digits[1:]
        out = mant + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + out


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def jcs_string(s):
    """ECMAScript JSON.stringify of a string (well-formed: lone surrogates as \\uXXXX)."""
    out = ['"']
    for ch in s:
        cp = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif cp < 0x20 or 0xD800 <= cp <= 0xDFFF:
            out.append("\\u%04x" % cp)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def utf16_key(s):
    return s.encode("utf-16-be", "surrogatepass")


def jcs(value):
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return jcs_string(value)
    if isinstance(value, (int, float)):
        return jcs_number(value)
    if isinstance(value, list):
        return "[" + ",".join(jcs(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value.keys(), key=utf16_key)
        return "{" + ",".join(jcs_string(k) + ":" + jcs(value[k]) for k in keys) + "}"
    raise ValueError("not a JSON value: %r" % type(value))


def entry_hash(entry):
    body = {k: v for k, v in entry.items() if k not in ("hash", "sig")}
    text = jcs(body)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# --- Ed25519 verification (RFC 8032 section 6, pure Python) ----------------------------------

_P = 2**255 - 19
_L = 2**252 + 27742317777372353535851937790883648493
_D = (-121665 * pow(121666, _P - 2, _P)) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _add(a, b):
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    A = (y1 - x1) * (y2 - x2) % _P
    B = (y1 + x1) * (y2 + x2) % _P
    C = 2 * t1 * t2 * _D % _P
    Dd = 2 * z1 * z2 % _P
    E, F, G, H = B - A, Dd - C, Dd + C, B + A
    return (E * F % _P, G * H % _P, F * G % _P, E * H % _P)


def _mul(s, p):
    q = (0, 1, 1, 0)
    while s > 0:
        if s & 1:
            q = _add(q, p)
        p = _add(p, p)
        s >>= 1
    return q


def _equal(a, b):
    x1, y1, z1, _ = a
    x2, y2, z2, _ = b
    return (x1 * z2 - x2 * z1) % _P == 0 and (y1 * z2 - y2 * z1) % _P == 0


def _recover_x(y, sign):
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P)
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P != 0:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P != 0:
        return None
    if (x & 1) != sign:
        x = _P - x
    return x


def _decompress(b):
    if len(b) != 32:
        return None
    y = int.from_bytes(b, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % _P)


_GY = 4 * pow(5, _P - 2, _P) % _P
_G = (_recover_x(_GY, 0), _GY, 1, _recover_x(_GY, 0) * _GY % _P)


def ed25519_verify(public, message, signature):
    if len(public) != 32 or len(signature) != 64:
        return False
    A = _decompress(public)
    R = _decompress(signature[:32])
    if A is None or R is None:
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= _L:
        return False
    h = int.from_bytes(hashlib.sha512(signature[:32] + public + message).digest(), "little") % _L
    return _equal(_mul(s, _G), _add(R, _mul(h, A)))


# --- The chain -------------------------------------------------------------------------------

HEX = set("0123456789abcdef")


def is_hex(value, length):
    return isinstance(value, str) and len(value) == length and set(value) <= HEX


def _no_constants(name):
    raise ValueError("%s is not JSON" % name)


def verify(files, public_key):
    breaks = []
    prev = "genesis"
    ids = set()
    open_requests = set()
    saw_signed = False
    count = 0
    for path in files:
        with open(path, "rb") as fh:
            data = fh.read()
        lines = data.split(b"\n")
        tail = lines.pop()  # after the last "\n": empty for a well-terminated file
        numbered = [(i + 1, raw, True) for i, raw in enumerate(lines)]
        if tail != b"":
            numbered.append((len(lines) + 1, tail, False))
        for number, raw, terminated in numbered:
            where = "%s:%d" % (path, number)
            if not terminated:
                breaks.append(where + ": truncated last line")
                continue
            try:
                entry = json.loads(raw.decode("utf-8"), parse_constant=_no_constants)
                if not isinstance(entry, dict):
                    raise ValueError("not an object")
                if entry.get("version") != 1 or isinstance(entry.get("version"), bool):
                    raise ValueError("unsupported version")
                if not is_hex(entry.get("hash"), 64):
                    raise ValueError("bad hash field")
                if entry.get("prev_hash") != "genesis" and not is_hex(entry.get("prev_hash"), 64):
                    raise ValueError("bad prev_hash field")
                if not isinstance(entry.get("id"), str) or entry["id"] == "":
                    raise ValueError("missing id")
                if entry.get("phase") not in ("attempt", "completion"):
                    raise ValueError("bad phase")
                if not isinstance(entry.get("request_id"), str):
                    raise ValueError("missing request_id")
                if "sig" in entry and not is_hex(entry["sig"], 128):
                    raise ValueError("bad sig field")
                computed = entry_hash(entry)
            except (ValueError, UnicodeDecodeError) as err:
                breaks.append("%s: malformed entry (%s)" % (where, err))
                prev = None  # the link across an unreadable line is unknown
                continue
            count += 1
            if computed != entry["hash"]:
                breaks.append(where + ": hash mismatch")
            if prev is not None and entry["prev_hash"] != prev:
                breaks.append(where + ": broken link")
            prev = entry["hash"]
            if entry["id"] in ids:
                breaks.append(where + ": duplicate id")
            ids.add(entry["id"])
            if entry["phase"] == "attempt":
                open_requests.add(entry["request_id"])
            elif entry["request_id"] in open_requests:
                open_requests.discard(entry["request_id"])
            else:
                breaks.append(where + ": completion without attempt")
            if "sig" in entry:
                saw_signed = True
                if public_key is not None and not ed25519_verify(
                    public_key, entry["hash"].encode("ascii"), bytes.fromhex(entry["sig"])
                ):
                    breaks.append(where + ": bad signature")
            elif public_key is not None and saw_signed:
                breaks.append(where + ": missing signature")
    return count, breaks


def main(argv):
    args = list(argv)
    public_key = None
    if args[:1] == ["--public-key"]:
        if len(args) < 2 or not is_hex(args[1].lower(), 64):
            print("usage: --public-key takes 64 hex characters", file=sys.stderr)
            return 2
        public_key = bytes.fromhex(args[1])
        args = args[2:]
    if not args:
        print("usage: third-party-verify.py [--public-key HEX] FILE [FILE ...]", file=sys.stderr)
        return 2
    try:
        count, breaks = verify(args, public_key)
    except OSError as err:
        print("cannot read: %s" % err, file=sys.stderr)
        return 2
    for b in breaks:
        print(b)
    if breaks:
        print("NOT verified: %d break(s)" % len(breaks))
        return 1
    print("ok: %d entries" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
