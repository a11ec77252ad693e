package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/dream/dreamtest"
)

// binPath is the real binary, built once by TestMain.
var binPath string

// cleanups run after all tests and benchmarks (shared benchmark corpora).
var cleanups []func()

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "somni-sidecar-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "somni-sidecar")
	args := []string{"build", "-o", binPath}
	if os.Getenv("SOMNI_TEST_RACE") != "" { // SOMNI_TEST_RACE=1 go test: race-check the real binary
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build somni-sidecar:", err)
		os.Exit(1)
	}
	code := m.Run()
	for _, c := range cleanups {
		c()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// wire is one JSON-RPC frame as the test sees it.
type wire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw string
}

// sidecar is a running binary driven over real pipes.
type proc struct {
	t       testing.TB
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stderr  *lockedBuffer
	dataDir string

	mu      sync.Mutex
	waiters map[string]chan wire
	lines   []string // every stdout line, for the protocol-only check
	bad     []string // stdout lines that are not JSON-RPC frames
	nextID  int
	onCall  func(w wire) (any, *wireErr) // answers reverse calls; nil ⇒ -32601
	notes   []wire                       // notifications from the sidecar, in arrival order
	noted   chan struct{}                // signalled (non-blocking) on each new note
	exited  chan struct{}
	exitErr error
}

type wireErr struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// dreamHost wires a scripted model to the binary's llm.chat.
func dreamHost(s *proc, model *dreamtest.Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onCall = func(w wire) (any, *wireErr) {
		if w.Method != "llm.chat" {
			return nil, &wireErr{Code: -32601, Message: "method not found: " + w.Method}
		}
		out, err := model.ServeLLMChat(context.Background(), w.Params)
		if err != nil {
			return nil, &wireErr{Code: -32000, Message: err.Error()}
		}
		return json.RawMessage(out), nil
	}
}

// liveWait is how long a test waits for the sidecar's reply, notification
// or exit before calling it hung. A liveness bound, not a latency target
// (make bench has those): a dream of a dozen writes answers in well under
// a second on an idle machine and took over 20 s at load 15 on 2 cores.
const liveWait = 2 * time.Minute

// start launches the binary on dataDir with extra args and env.
func start(t testing.TB, dataDir string, args []string, env ...string) *proc {
	t.Helper()
	full := append([]string{"--data-dir", dataDir, "--embed", "off", "--log-level", "debug"}, args...)
	cmd := exec.Command(binPath, full...)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &proc{t: t, cmd: cmd, stdin: stdin, stderr: &lockedBuffer{}, dataDir: dataDir,
		waiters: map[string]chan wire{}, exited: make(chan struct{}), noted: make(chan struct{}, 1)}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go s.readLoop(stdout)
	t.Cleanup(func() {
		s.kill()
		if t.Failed() {
			t.Logf("sidecar stderr:\n%s", s.stderr.String())
		}
	})
	return s
}

func (s *proc) readLoop(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		var w wire
		err := json.Unmarshal([]byte(line), &w)
		s.mu.Lock()
		s.lines = append(s.lines, line)
		if err != nil || w.JSONRPC != "2.0" || (w.Method == "" && w.Result == nil && w.Error == nil) {
			s.bad = append(s.bad, line)
			s.mu.Unlock()
			continue
		}
		w.raw = line
		if w.Method != "" && (len(w.ID) == 0 || string(w.ID) == "null") { // a notification: never answered
			s.notes = append(s.notes, w)
			s.mu.Unlock()
			select {
			case s.noted <- struct{}{}:
			default:
			}
			continue
		}
		if w.Method != "" { // a reverse call from the sidecar
			h := s.onCall
			s.mu.Unlock()
			go s.answer(w, h)
			continue
		}
		ch := s.waiters[string(w.ID)]
		delete(s.waiters, string(w.ID))
		s.mu.Unlock()
		if ch != nil {
			ch <- w
		}
	}
	s.exitErr = s.cmd.Wait()
	close(s.exited)
}

func (s *proc) answer(w wire, h func(wire) (any, *wireErr)) {
	var res any
	var e *wireErr
	if h == nil {
		e = &wireErr{Code: -32601, Message: "no handler"}
	} else {
		res, e = h(w)
	}
	frame := map[string]any{"jsonrpc": "2.0", "id": w.ID}
	if e != nil {
		frame["error"] = e
	} else {
		frame["result"] = res
	}
	b, _ := json.Marshal(frame)
	s.sendRaw(string(b))
}

func (s *proc) sendRaw(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Logf("write to sidecar: %v", err)
	}
}

// send writes a request with a fresh numeric id and returns the reply channel.
func (s *proc) send(method string, params any) (string, chan wire) {
	s.mu.Lock()
	s.nextID++
	id := fmt.Sprint(s.nextID)
	ch := make(chan wire, 1)
	s.waiters[id] = ch
	s.mu.Unlock()
	frame := map[string]any{"jsonrpc": "2.0", "id": s.nextIDRaw(id), "method": method}
	if params != nil {
		frame["params"] = params
	}
	b, err := json.Marshal(frame)
	if err != nil {
		s.t.Fatal(err)
	}
	s.sendRaw(string(b))
	return id, ch
}

func (s *proc) nextIDRaw(id string) json.RawMessage { return json.RawMessage(id) }

// expect registers a waiter for a raw id the test writes itself.
func (s *proc) expect(rawID string) chan wire {
	ch := make(chan wire, 1)
	s.mu.Lock()
	s.waiters[rawID] = ch
	s.mu.Unlock()
	return ch
}

func (s *proc) wait(ch chan wire, what string) wire {
	s.t.Helper()
	select {
	case w := <-ch:
		return w
	case <-s.exited:
		s.t.Fatalf("%s: sidecar exited (%v)", what, s.exitErr)
	case <-time.After(liveWait):
		s.t.Fatalf("%s: no reply in %v", what, liveWait)
	}
	return wire{}
}

// call sends a request and decodes a successful result into out.
func (s *proc) call(method string, params, out any) {
	s.t.Helper()
	_, ch := s.send(method, params)
	w := s.wait(ch, method)
	if w.Error != nil {
		s.t.Fatalf("%s: error %d %s", method, w.Error.Code, w.Error.Message)
	}
	if out != nil {
		if err := json.Unmarshal(w.Result, out); err != nil {
			s.t.Fatalf("%s: decode %s: %v", method, w.Result, err)
		}
	}
}

// callErr sends a request that must fail and returns its error code and message.
func (s *proc) callErr(method string, params any) (int64, string) {
	s.t.Helper()
	_, ch := s.send(method, params)
	w := s.wait(ch, method)
	if w.Error == nil {
		s.t.Fatalf("%s: want an error, got %s", method, w.raw)
	}
	return w.Error.Code, w.Error.Message
}

// tool calls tools.call and returns the result text.
func (s *proc) tool(name string, args any, extra ...string) string {
	s.t.Helper()
	p := map[string]any{"name": name, "args": args}
	for i := 0; i+1 < len(extra); i += 2 {
		p[extra[i]] = extra[i+1]
	}
	var res struct {
		Result string `json:"result"`
	}
	s.call("tools.call", p, &res)
	return res.Result
}

// waitNote waits for a notification from the sidecar whose raw frame is
// exactly want.
func (s *proc) waitNote(want string) {
	s.t.Helper()
	deadline := time.After(liveWait)
	for {
		s.mu.Lock()
		for _, n := range s.notes {
			if n.raw == want {
				s.mu.Unlock()
				return
			}
		}
		got := len(s.notes)
		s.mu.Unlock()
		select {
		case <-s.noted:
		case <-s.exited:
			s.t.Fatalf("sidecar exited before sending %s", want)
		case <-deadline:
			s.t.Fatalf("no notification %s (got %d others)", want, got)
		}
	}
}

// waitExit waits for the process to end and returns its exit code.
func (s *proc) waitExit() int {
	s.t.Helper()
	select {
	case <-s.exited:
	case <-time.After(liveWait):
		s.t.Fatalf("sidecar did not exit in %v", liveWait)
	}
	if s.exitErr == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(s.exitErr, &ee) {
		return ee.ExitCode()
	}
	return -1
}

func (s *proc) kill() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
	}
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
	}
}

// assertProtocolOnly checks that every stdout line was a JSON-RPC frame.
func (s *proc) assertProtocolOnly() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bad) > 0 {
		s.t.Fatalf("stdout carried %d non-protocol line(s), first: %q", len(s.bad), s.bad[0])
	}
	if len(s.lines) == 0 {
		s.t.Fatal("no stdout lines at all")
	}
}

// runCLI runs the binary to completion and returns its stdout and exit code.
func runCLI(t testing.TB, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command(binPath, args...).Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

func mustContain(t testing.TB, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Fatalf("%s: %q not found in:\n%s", what, w, got)
		}
	}
}
