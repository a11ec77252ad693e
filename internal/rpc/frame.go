package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// MaxFrameBytes bounds one incoming line; a longer line is discarded with a
// -32700 reply so a runaway writer cannot exhaust memory.
const MaxFrameBytes = 64 << 20

// ErrFrameTooLarge marks a line that exceeded its reader's bound and was
// skipped.
var ErrFrameTooLarge = errors.New("frame too large")

// oversizeKeep is how much of an oversized line's head and of its tail is
// kept to find which call it answered: encoders put the id either before
// the result (after at most a jsonrpc member) or last, and 4 KiB holds
// that prefix or suffix with room to spare while costing nothing next to
// the 64 MiB that were discarded.
const oversizeKeep = 4 << 10

// frameTooLargeError is ErrFrameTooLarge with the ends of the dropped line.
type frameTooLargeError struct{ head, tail []byte }

func (e *frameTooLargeError) Error() string        { return ErrFrameTooLarge.Error() }
func (e *frameTooLargeError) Is(target error) bool { return target == ErrFrameTooLarge }

// keepTail keeps the last oversizeKeep bytes seen of the line.
func (e *frameTooLargeError) keepTail(b []byte) {
	if len(b) >= oversizeKeep {
		e.tail = append(e.tail[:0], b[len(b)-oversizeKeep:]...)
		return
	}
	e.tail = append(e.tail, b...)
	if n := len(e.tail); n > oversizeKeep {
		e.tail = append(e.tail[:0], e.tail[n-oversizeKeep:]...)
	}
}

// tailID matches a top-level id as the last member of a frame (optionally
// followed by jsonrpc, as key-sorting encoders write it): nothing but the
// closing brace may follow, so an "id" of a nested object or inside a
// string (its quotes are escaped) does not match.
var tailID = regexp.MustCompile(`(?:^|[,{])\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|[0-9]+)\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`)

// replyID finds the id of a dropped reply: from its head when a top-level
// id comes before the result or error, else from its tail. A line whose
// head shows a method is a request, never a reply.
func (e *frameTooLargeError) replyID() (jsonrpc2.ID, bool) {
	dec := json.NewDecoder(bytes.NewReader(e.head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return jsonrpc2.ID{}, false
	}
	var id json.RawMessage
	reply := false
	for dec.More() {
		k, err := dec.Token()
		key, _ := k.(string)
		if err != nil {
			break
		}
		if key == "method" {
			return jsonrpc2.ID{}, false
		}
		if key == "result" || key == "error" {
			reply = true
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break // the value runs past the head
		}
		if key == "id" {
			id = v
		}
	}
	if len(id) > 0 && reply && classifyID(id).reply() {
		return parseID(id), true
	}
	if m := tailID.FindSubmatch(e.tail); m != nil && classifyID(m[1]).reply() {
		return parseID(m[1]), true
	}
	return jsonrpc2.ID{}, false
}

// lineStream carries newline-delimited JSON: one compact object per line in
// both directions. It answers malformed frames itself (under the write
// lock) and keeps reading: one bad frame from a host must not end the
// session.
type lineStream struct {
	LineReader
	rc     io.Closer // r's underlying closer, if any
	w      io.Writer
	wc     io.Closer // w's underlying closer, if any
	logger *slog.Logger
	// onEnd runs when the input ends, before readLoop returns (and the Conn
	// closes everything): the Conn lets in-flight handlers reply first.
	onEnd func()
	// onRequest dispatches an incoming request on the reading goroutine.
	onRequest func(*request)
	// onResponse delivers a reply to one of our calls.
	onResponse func(*response)

	mu       sync.Mutex // guards the write state below
	cond     *sync.Cond // signals written/werr changes
	pending  []byte     // frames queued for the next write
	spare    []byte     // recycled buffer
	queued   uint64     // frames queued so far
	written  uint64     // frames written so far
	flushing bool       // a writer is inside w.Write
	werr     error      // sticky write error: the peer is gone
}

func newLineStream(r io.Reader, w io.Writer, logger *slog.Logger) *lineStream {
	s := &lineStream{LineReader: *NewLineReader(r, MaxFrameBytes), w: w, logger: logger}
	s.cond = sync.NewCond(&s.mu)
	if c, ok := r.(io.Closer); ok {
		s.rc = c
	}
	if c, ok := w.(io.Closer); ok {
		s.wc = c
	}
	return s
}

// writeFrame queues b (one frame, or several joined by newlines) and writes
// it with any others queued meanwhile (group commit): one request costs one
// write(2), while a burst of concurrent replies shares syscalls instead of
// queueing on a lock.
func (s *lineStream) writeFrame(b []byte) error {
	s.mu.Lock()
	s.pending = appendUnescapedHTML(s.pending, b)
	s.pending = append(s.pending, '\n')
	seq := s.queued + 1
	s.queued = seq
	if s.flushing {
		// The active flusher will write our frame; wait until it has.
		for s.written < seq && s.werr == nil {
			s.cond.Wait()
		}
		err := s.werr
		s.mu.Unlock()
		return err
	}
	return s.flushLocked()
}

// flushLocked writes pending frames until none are left; it is entered with
// s.mu held and returns with it released.
func (s *lineStream) flushLocked() error {
	s.flushing = true
	for len(s.pending) > 0 && s.werr == nil {
		buf := s.pending
		upTo := s.queued
		s.pending = s.spare[:0]
		s.mu.Unlock()
		_, err := s.w.Write(buf)
		s.mu.Lock()
		if err != nil {
			s.werr = fmt.Errorf("rpc: write frame: %w", err)
		}
		s.written = upTo
		if cap(buf) <= 1<<20 { // do not pin a huge buffer after one big reply
			s.spare = buf[:0]
		}
		s.cond.Broadcast()
	}
	s.flushing = false
	err := s.werr
	s.mu.Unlock()
	return err
}

// writeError sends an error response for a frame that was not dispatched,
// echoing its id verbatim (null when it has none or an unusable one).
func (s *lineStream) writeError(id json.RawMessage, code int64, msg string) {
	frame, err := ErrorFrame(id, code, msg)
	if err != nil { // only reachable with a corrupt id, which we never pass
		s.logger.Error("rpc: encode error frame", "err", err)
		return
	}
	if err := s.writeFrame(frame); err != nil {
		s.logger.Warn("rpc: cannot send error frame", "err", err)
	}
}

// ErrorFrame encodes the error response to a frame that was not
// dispatched, echoing its id verbatim (null when it has none).
func ErrorFrame(id json.RawMessage, code int64, msg string) ([]byte, error) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	frame, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *Error          `json:"error"`
	}{"2.0", id, &Error{Code: code, Message: msg}})
	if err != nil {
		return nil, fmt.Errorf("rpc: encode error frame: %w", err)
	}
	return frame, nil
}

// Close closes both underlying ends when they are closers.
func (s *lineStream) Close() error {
	var errs []error
	if s.rc != nil {
		errs = append(errs, s.rc.Close())
	}
	if s.wc != nil && s.wc != s.rc {
		errs = append(errs, s.wc.Close())
	}
	return errors.Join(errs...)
}

// LineReader reads newline-delimited frames under a bound: a longer line
// is discarded as it streams in, never buffered whole. The MCP transport
// reads its client with it too, so both protocols share one bound.
type LineReader struct {
	r     *bufio.Reader
	limit int // max line length; MaxFrameBytes outside tests
}

// NewLineReader reads lines of at most limit bytes from r.
func NewLineReader(r io.Reader, limit int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

// Limit is the longest line the reader returns.
func (s *LineReader) Limit() int { return s.limit }

// Next returns the next line without its terminator, or an error matching
// ErrFrameTooLarge after discarding a line longer than the limit. The
// returned slice is only valid until the next call.
func (s *LineReader) Next() ([]byte, error) {
	var acc []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if acc == nil && err == nil && len(chunk) <= s.limit {
			return chunk, nil // fast path: whole line in the buffer
		}
		if len(acc)+len(chunk) > s.limit {
			big := &frameTooLargeError{}
			first := acc
			if first == nil {
				first = chunk
			}
			big.head = append([]byte(nil), first[:min(len(first), oversizeKeep)]...)
			big.keepTail(acc)
			big.keepTail(chunk)
			for errors.Is(err, bufio.ErrBufferFull) { // drain the rest of the line
				chunk, err = s.r.ReadSlice('\n')
				big.keepTail(chunk)
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			return nil, big
		}
		acc = append(acc, chunk...)
		switch {
		case err == nil:
			return acc, nil
		case err == io.EOF && len(acc) > 0:
			return acc, nil // last line without a newline
		case !errors.Is(err, bufio.ErrBufferFull):
			return nil, err
		}
	}
}

// readLoop is the connection's read loop. Every frame is handled here:
// requests go to onRequest and replies to onResponse on this goroutine,
// malformed frames are answered and skipped. It only returns (with the
// error that ends the connection) when the input fails or ends.
func (s *lineStream) readLoop() error {
	for {
		line, err := s.Next()
		if errors.Is(err, ErrFrameTooLarge) {
			s.logger.Warn("rpc: dropped oversized frame", "limit", s.limit)
			s.writeError(nil, CodeParseError, fmt.Sprintf("parse error: frame exceeds %d bytes", s.limit))
			// A reply to one of our calls fails that call now; left alone it
			// would wait for its timeout (600 s for llm.chat).
			var big *frameTooLargeError
			if errors.As(err, &big) {
				if id, ok := big.replyID(); ok {
					s.onResponse(&response{id: id, err: &Error{Code: CodeParseError,
						Message: fmt.Sprintf("peer reply exceeds the %d-byte frame limit and was dropped", s.limit)}})
				}
			}
			continue
		}
		if err != nil {
			if s.onEnd != nil {
				s.onEnd()
			}
			return err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		req, resp, id, code, msg := vet(line)
		switch {
		case code != 0:
			s.logger.Warn("rpc: rejected frame", "code", code, "reason", msg)
			s.writeError(id, code, msg)
			if resp != nil {
				s.onResponse(resp) // fails the call it answered, see vet
			}
		case req != nil:
			s.onRequest(req)
		default:
			s.onResponse(resp)
		}
	}
}

// appendUnescapedHTML appends b to dst with encoding/json's HTML escapes
// (\u003c \u003e \u0026) turned back into the raw characters. It tracks
// string boundaries and backslash pairs so a literal "\\u003c" in text stays.
func appendUnescapedHTML(dst, b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return append(dst, b...)
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			dst = append(dst, c)
			continue
		}
		// An escape sequence: copy it whole unless it is one of the three.
		if b[i+1] == 'u' && i+5 < len(b) && b[i+2] == '0' && b[i+3] == '0' {
			switch string(b[i+4 : i+6]) {
			case "3c":
				dst = append(dst, '<')
				i += 5
				continue
			case "3e":
				dst = append(dst, '>')
				i += 5
				continue
			case "26":
				dst = append(dst, '&')
				i += 5
				continue
			}
		}
		dst = append(dst, c, b[i+1])
		i++
	}
	return dst
}
