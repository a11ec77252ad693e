package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/jsonfast"
	"github.com/somni-dev/somni/internal/textcut"
	"github.com/sourcegraph/jsonrpc2"
)

// JSON-RPC error codes used by somni.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeRequestCancelled = -32800 // LSP's code for a request the peer cancelled
)

// CancelMethod is the notification that cancels an in-flight request by id.
const CancelMethod = "$/cancelRequest"

// Error is a JSON-RPC error object; a handler returning one has it sent to
// the peer unchanged.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message) }

// Errorf builds an *Error with a formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithData sets e's data member to v as JSON and returns e (a v that does
// not encode leaves it without data).
func (e *Error) WithData(v any) *Error {
	if b, err := json.Marshal(v); err == nil {
		e.Data = b
	}
	return e
}

// InvalidParams builds a -32602 error.
func InvalidParams(format string, args ...any) *Error {
	return Errorf(CodeInvalidParams, format, args...)
}

// probe is one frame's top level with every member left raw: the single
// decode every incoming frame gets before it is dispatched or rejected.
type probe struct {
	ID     json.RawMessage `json:"id"`
	Method json.RawMessage `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// request is an incoming call or notification, decoded here with one
// json.Unmarshal into probe: jsonrpc2's own request decoding parses a frame
// about five times (validate, interface{} probe, validate again, a map of
// every member, re-marshal of params), which was the largest CPU cost of a
// session.append burst.
type request struct {
	key    string          // idKey(rawID): what $/cancelRequest names it by
	rawID  json.RawMessage // as the peer wrote it, echoed verbatim; nil for notifications
	method string
	params json.RawMessage // never empty: absent, null or [] params are {}
	notif  bool
}

// response is a reply from the peer to one of our calls.
type response struct {
	id     jsonrpc2.ID
	result json.RawMessage // "null" for an explicit null result
	err    *Error          // nil on success
}

// CheckFrame applies this side's checks to one trimmed, non-empty line of
// another protocol that shares JSON-RPC's framing (MCP): code is 0 when the
// frame is a well-formed request or reply, else the error to answer with
// the id to echo.
func CheckFrame(line []byte) (id json.RawMessage, code int64, msg string) {
	_, _, id, code, msg = vet(line)
	return id, code, msg
}

// vet decodes and checks one line. It returns a request, or a response,
// or an error code with the id to echo.
func vet(line []byte) (req *request, resp *response, id json.RawMessage, code int64, msg string) {
	if !utf8.Valid(line) {
		const why = "parse error: frame is not valid UTF-8"
		// A garbled reply to one of our calls still names the call: fail it
		// now rather than leave it to its timeout (600 s for llm.chat).
		var p probe
		if json.Unmarshal(line, &p) == nil && len(p.Method) == 0 && (len(p.Result) > 0 || len(p.Error) > 0) &&
			len(p.ID) > 0 && string(p.ID) != "null" && classifyID(p.ID).reply() {
			resp = &response{id: parseID(p.ID), err: &Error{Code: CodeParseError, Message: "peer reply " + why}}
		}
		return nil, resp, nil, CodeParseError, why
	}
	if line[0] == '[' && json.Valid(line) {
		// Neither the Python sidecar nor its host ever batched; saying so
		// beats a "parse error" for well-formed JSON.
		return nil, nil, nil, CodeInvalidRequest, "invalid request: batch requests are not supported; send one object per line"
	}
	if line[0] != '{' {
		return nil, nil, nil, CodeParseError, "parse error: frame is not a JSON object"
	}
	var p probe
	if err := jsonfast.Unmarshal(line, &p); err != nil {
		return nil, nil, nil, CodeParseError, "parse error: " + err.Error()
	}
	id = p.ID
	isNull := func(r json.RawMessage) bool { return len(r) == 0 || string(r) == "null" }
	isReq := len(p.Method) > 0
	isResp := len(p.Result) > 0 || len(p.Error) > 0
	switch {
	case isNull(id):
	case isReq && !classifyID(id).request():
		// An id we cannot echo as an id is no id: JSON-RPC answers null.
		return nil, nil, nil, CodeInvalidRequest, "invalid request: id must be a string or a number"
	case !isReq && !classifyID(id).reply():
		return nil, nil, nil, CodeInvalidRequest, "invalid request: id must be a string or a non-negative integer"
	}
	switch {
	case isReq && isResp:
		return nil, nil, id, CodeInvalidRequest, "invalid request: frame has both method and result/error"
	case isReq:
		method, ok := jsonString(p.Method)
		if !ok {
			return nil, nil, id, CodeInvalidRequest, "invalid request: method must be a string"
		}
		r := &request{method: method, params: p.Params, notif: isNull(id)}
		if isNull(r.params) || emptyArray(r.params) {
			// The Python sidecar read `params or {}`: null, missing and []
			// all meant "no params".
			r.params = json.RawMessage("{}")
		}
		if !r.notif {
			r.rawID = id
			r.key = idKey(id)
		}
		return r, nil, id, 0, ""
	case isResp:
		if isNull(id) {
			// A response nobody can match.
			return nil, nil, nil, CodeInvalidRequest, "invalid request: response without id"
		}
		r := &response{id: parseID(id), result: p.Result}
		if len(p.Error) > 0 && !isNull(p.Error) {
			var e Error
			if err := json.Unmarshal(p.Error, &e); err != nil || e.Code == 0 {
				// A peer's broken error fails the pending call, not the connection.
				e = Error{Code: CodeInternalError, Message: "peer sent a malformed error: " + textcut.ClipBytes(string(p.Error), 200, "…")}
			}
			r.err, r.result = &e, nil
		} else if len(r.result) == 0 {
			r.result = json.RawMessage("null") // {"error":null} and no result
		}
		return nil, r, id, 0, ""
	default:
		return nil, nil, id, CodeInvalidRequest, "invalid request: frame has neither method nor result/error"
	}
}

// emptyArray reports whether raw is `[]`, whitespace inside allowed.
func emptyArray(raw json.RawMessage) bool {
	return len(raw) >= 2 && raw[0] == '[' && len(bytes.TrimSpace(raw[1:len(raw)-1])) == 0
}

// jsonString decodes a raw JSON string, without the decoder when it has
// no escapes (method names never do).
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// idKey names a request id for cancellation: a string by its decoded text
// (so escapes do not matter), a number by its literal text.
func idKey(id json.RawMessage) string {
	if s, ok := jsonString(id); ok {
		return "s" + s
	}
	return "n" + string(id)
}

// parseID converts an id whose kind is a reply id.
func parseID(raw json.RawMessage) jsonrpc2.ID {
	if s, ok := jsonString(raw); ok {
		return jsonrpc2.ID{Str: s, IsString: true}
	}
	n, _ := strconv.ParseUint(string(raw), 10, 64)
	return jsonrpc2.ID{Num: n}
}

// idKind is an id's form, as the one check every id goes through
// (classifyID) sees it.
type idKind int

const (
	idInvalid idKind = iota
	idNumber         // a JSON number other than an idInteger
	idInteger        // a plain non-negative integer that fits in int64
	idString
)

// classifyID tells an id's form; id is non-empty.
func classifyID(id json.RawMessage) idKind {
	if id[0] == '"' {
		var s string
		if json.Unmarshal(id, &s) == nil {
			return idString
		}
		return idInvalid
	}
	if n, err := strconv.ParseInt(string(id), 10, 64); err == nil && n >= 0 && string(id) == strconv.FormatInt(n, 10) {
		return idInteger
	}
	var n json.Number
	if json.Unmarshal(id, &n) == nil {
		return idNumber
	}
	return idInvalid
}

// request reports whether a request may carry the id: JSON-RPC allows any
// string or number, and a request's raw id is echoed, so it need not fit
// an integer type.
func (k idKind) request() bool { return k != idInvalid }

// reply reports whether a reply may carry the id: it is matched to our call
// through jsonrpc2.ID, which round-trips only strings and non-negative
// integers that fit in int64.
func (k idKind) reply() bool { return k == idString || k == idInteger }
