"""What the sync and the asyncio client share of `serve --stdio`'s JSON lines: the request line, reading an answer
line, telling an answer from a line that breaks the protocol, and the checks of their arguments."""

import json
import math

# The longest answer line a client reads, in bytes before its newline: one answer may hold a whole email body
# (get_email's max_body_chars reaches 10 M characters, up to 4 bytes each). A longer line stops that server (its
# stream cannot be read on) and fails the calls waiting on it; the next call starts a new one.
MAX_ANSWER_BYTES = 256 * 1024 * 1024

# serve reads request lines up to 1 MB (StdioServer.MAX_LINE_BYTES) and answers a longer one without its id, so
# that no caller would ever see it: the client refuses such a request itself.
MAX_REQUEST_BYTES = 1 << 20

# The code of a failure where the server wrote something that is not the protocol's answer (not UTF-8, not JSON,
# not an object, fields of the wrong type, a line over MAX_ANSWER_BYTES); "unavailable" is no answer at all.
BAD_ANSWER = "bad_answer"


class BrokenStream(Exception):
    """The server wrote a line no answer can be read from: the stream is not the protocol's, so no later line can
    be trusted to belong to the call it names. The reason says what was wrong."""


def seconds(name, value):
    """value, checked to be a positive, finite number of seconds (ValueError naming the argument otherwise)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or math.isinf(value):
        raise ValueError("%s must be a positive, finite number of seconds, got %r" % (name, value))
    return float(value)


def request_line(request_id, command, params):
    """The request as one UTF-8 line. ValueError for params JSON cannot carry (NaN, infinity) and for a line over
    MAX_REQUEST_BYTES: serve could not tell which call such a line was."""
    try:
        text = json.dumps({"id": request_id, "command": command, "params": params}, ensure_ascii=False, allow_nan=False)
    except ValueError as e:
        raise ValueError("the params of %s cannot be sent as JSON: %s" % (command, e)) from None
    line = (text + "\n").encode("utf-8")
    if len(line) > MAX_REQUEST_BYTES:
        raise ValueError("the request for %s is %d bytes; serve reads request lines up to %d bytes (1 MB)"
                         % (command, len(line), MAX_REQUEST_BYTES))
    return line


def answer_line(raw):
    """One line as read (bytes, its newline included if it had one, at most MAX_ANSWER_BYTES + 1 bytes): the answer
    object, or None for an object that answers no request of ours (no string id: serve answers a line it could not
    read without one). Raises BrokenStream for a line that is not a JSON object in UTF-8, or too long."""
    if len(raw) > MAX_ANSWER_BYTES and not raw.endswith(b"\n"):
        raise BrokenStream("an answer line over %d MiB (the clients' limit, MAX_ANSWER_BYTES)"
                           % (MAX_ANSWER_BYTES // (1024 * 1024)))
    try:
        answer = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise BrokenStream("a line that is not UTF-8 (byte 0x%02x at %d)" % (raw[e.start], e.start)) from None
    except (ValueError, RecursionError) as e:
        raise BrokenStream("a line that is not JSON (%s): %s" % (e, _excerpt(raw))) from None
    if not isinstance(answer, dict):
        raise BrokenStream("a line that is not a JSON object: %s" % _excerpt(raw))
    return answer if isinstance(answer.get("id"), str) else None


def outcome(answer):
    """An answer object as the clients return it: (result, None, None) for "ok", where result is
    {"data", "backend", "duration_ms"}; else (None, code, reason): the error answer's, or BAD_ANSWER when the object
    is not an answer of the protocol's shape."""
    status = answer.get("status")
    if status == "ok":
        meta = answer.get("meta", {})
        if "data" not in answer or not isinstance(meta, dict):
            return None, BAD_ANSWER, "an ok answer without data or with a meta that is not an object: %s" % _excerpt(answer)
        return answer_of(answer), None, None
    if status == "error":
        error = answer.get("error")
        if not isinstance(error, dict) or not isinstance(error.get("code"), str) or not error["code"]:
            return None, BAD_ANSWER, "an error answer without an error object and its code: %s" % _excerpt(answer)
        return None, error["code"], "%s: %s" % (error["code"], error.get("message", "no message"))
    return None, BAD_ANSWER, "an answer whose status is neither ok nor error: %s" % _excerpt(answer)


def answer_of(answer):
    """A serve answer line as the clients return it: {data, backend, duration_ms}."""
    meta = answer.get("meta")
    meta = meta if isinstance(meta, dict) else {}
    return {"data": answer.get("data"), "backend": meta.get("backend"), "duration_ms": meta.get("duration_ms")}


def _excerpt(value):
    text = value.decode("utf-8", "replace").rstrip("\n") if isinstance(value, bytes) else json.dumps(value)[:1000]
    return repr(text[:120] + ("..." if len(text) > 120 else ""))
