package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/sidecar"
	"github.com/somni-dev/somni/internal/textcut"
)

// dreamRecord is the last dream this server ran.
type dreamRecord struct {
	at     time.Time
	took   time.Duration
	result sleepResult
}

// sleepResult is the sleep.run reply.
type sleepResult struct {
	Status     string            `json:"status"`
	Summary    string            `json:"summary"`
	Reason     string            `json:"reason"`
	TokenUsage *dream.TokenUsage `json:"token_usage"`
}

// sleepStatus is the sleep.status reply.
type sleepStatus struct {
	Sleeping    bool   `json:"sleeping"`
	PendingLogs int    `json:"pendingLogs"`
	LLM         string `json:"llm"`
}

// maxSummaryRunes bounds how much of a dream summary dream_status repeats.
const maxSummaryRunes = 300

func (s *Server) dreamStatus(ctx context.Context, env clientEnv, _ struct{}) (string, error) {
	var st sleepStatus
	if err := s.call(ctx, "sleep.status", struct{}{}, &st); err != nil {
		return "", fmt.Errorf("dream_status: %w", err)
	}
	var b strings.Builder
	if st.Sleeping {
		b.WriteString("A dream is running now.\n")
	} else {
		b.WriteString("No dream is running.\n")
	}
	fmt.Fprintf(&b, "Pending logs (waiting for a dream): %d\n", st.PendingLogs)
	if n := s.notes.waiting(env.client); n > 0 {
		fmt.Fprintf(&b, "Notes from this client not yet pending: %d (their log closes %s after the last note, at dream_now, or when this server stops)\n",
			n, s.notes.idle)
	}
	_, why := s.modelFor(env, st.LLM)
	b.WriteString("Dream model: " + why + "\n")
	s.dreamMu.Lock()
	last := s.lastDream
	s.dreamMu.Unlock()
	if last != nil {
		fmt.Fprintf(&b, "Last dream from this server: %s, took %s, %s\n", last.at.Format(time.RFC3339),
			last.took.Round(time.Second), describeDream(last.result))
	}
	// Dreams of other processes (DSH's sidecar) leave their diary on disk.
	var diaries sidecar.Diaries
	if err := s.call(ctx, "sleep.diaries", struct{}{}, &diaries); err != nil {
		s.log.Warn("dream_status: list dream diaries", "err", err)
	} else if diaries.Count > 0 {
		fmt.Fprintf(&b, "Newest dream diary: %s (%d in all)\n", diaries.Newest, diaries.Count)
	} else {
		b.WriteString("No dream diary yet.\n")
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// modelFor says whether a dream started from this client has a model, and
// which, in words.
func (s *Server) modelFor(env clientEnv, llm string) (ok bool, why string) {
	switch llm {
	case "openai":
		return true, "the OpenAI-compatible endpoint this server was started with (--llm openai)"
	case "none":
		return false, "none: --llm openai is set, but OPENAI_API_KEY (or SLEEP_API_KEY) and a model (SLEEP_MODEL/OPENAI_MODEL) are missing"
	case SamplingName:
		switch sampling(env.session) {
		case samplingTools:
			return true, "this client's own model (MCP sampling with tools)"
		case samplingText:
			return false, "none here: this client offers MCP sampling without tool use, and the dreamer works only through tool calls"
		}
		return false, "none here: this client does not offer MCP sampling"
	}
	return false, "none (" + llm + ")"
}

// needsModel is dream_now's answer when there is no model to dream with.
func needsModel(why string, pending int) error {
	return fmt.Errorf("Cannot dream from here: the dream model is %s. Pending logs stay until a dream takes them: "+
		"DSH's sidecar dreams with its host's model when its agents are idle, or start this server with "+
		"--llm openai (OPENAI_API_KEY, OPENAI_BASE_URL, SLEEP_MODEL), which works under any MCP client. Pending logs now: %d.", why, pending)
}

func (s *Server) dreamNow(ctx context.Context, env clientEnv, _ struct{}) (string, error) {
	var st sleepStatus
	if err := s.call(ctx, "sleep.status", struct{}{}, &st); err != nil {
		return "", fmt.Errorf("dream_now: %w", err)
	}
	if ok, why := s.modelFor(env, st.LLM); !ok {
		return "", needsModel(why, st.PendingLogs)
	}
	// This client's notes join the dream.
	s.notes.closeClient(env.client)
	trigger := "mcp dream_now"
	if env.client != "" {
		trigger += " (" + textcut.Clip(env.client, maxClientChars, "") + ")"
	}
	started := s.now()
	var res sleepResult
	err := s.call(withSampling(ctx, env), "sleep.run", map[string]string{"trigger": trigger}, &res)
	if err != nil {
		return "", fmt.Errorf("dream_now: %w", err)
	}
	s.dreamMu.Lock()
	s.lastDream = &dreamRecord{at: started, took: s.now().Sub(started), result: res}
	s.dreamMu.Unlock()
	return "Dream " + describeDream(res), nil
}

// describeDream renders a sleep.run result in a line or a few.
func describeDream(r sleepResult) string {
	out := r.Status
	switch r.Status {
	case dream.StatusDeepSleep:
		if sum := strings.TrimSpace(r.Summary); sum != "" {
			out += ": " + textcut.Clip(sum, maxSummaryRunes, "")
		}
	case dream.StatusSkipped:
		out += " (" + r.Reason + ")"
		if r.Reason == dream.ReasonNoPendingLogs {
			out += ": nothing to consolidate"
		}
	default:
		if r.Reason != "" {
			out += ": " + textcut.Clip(r.Reason, maxSummaryRunes, "")
		}
	}
	if u := r.TokenUsage; u != nil && u.TotalTokens > 0 {
		out += fmt.Sprintf(" [%d tokens]", u.TotalTokens)
	}
	return out
}

// samplingSupport is what a client's initialize said about sampling.
type samplingSupport int

const (
	samplingNone samplingSupport = iota
	samplingText                 // createMessage without tool use
	samplingTools
)

func sampling(ss *mcp.ServerSession) samplingSupport {
	if ss == nil {
		return samplingNone
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Sampling == nil {
		return samplingNone
	}
	if ip.Capabilities.Sampling.Tools == nil {
		return samplingText
	}
	return samplingTools
}

var errNoSession = errors.New("no MCP client session to sample from (dreams over sampling start with dream_now)")
