package loopcompact_test

// A round against a fake provider on 127.0.0.1 (net/http/httptest) that answers as OpenAI's Chat
// Completions API does (choices[0].message.content, finish_reason, usage.completion_tokens),
// through the adapter bindings/go/README.md shows: the README's block must be this file's
// openAIChat, byte for byte.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

// BEGIN README adapter

// openAIChat is a CallModel over OpenAI's Chat Completions API (POST {baseURL}/chat/completions;
// any compatible server): the request's system prompt and turns as messages, MaxTokens as
// max_tokens; the reply's content, finish_reason and usage.completion_tokens.
func openAIChat(client *http.Client, baseURL, apiKey, model string) lc.CallModel {
	return func(ctx context.Context, req lc.SummaryRequest) (lc.SummaryReply, error) {
		type message struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}
		messages := []message{{Role: "system", Content: req.System}}
		for _, m := range req.Messages {
			messages = append(messages, message{Role: m.Role, Content: m.Content})
		}
		body, err := json.Marshal(map[string]any{"model": model, "messages": messages, "max_tokens": req.MaxTokens})
		if err != nil {
			return lc.SummaryReply{}, err
		}
		hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/chat/completions", bytes.NewReader(body))
		if err != nil {
			return lc.SummaryReply{}, err
		}
		hreq.Header.Set("Content-Type", "application/json")
		hreq.Header.Set("Authorization", "Bearer "+apiKey)
		resp, err := client.Do(hreq)
		if err != nil {
			return lc.SummaryReply{}, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return lc.SummaryReply{}, fmt.Errorf("chat completions: HTTP %d", resp.StatusCode)
		}
		var out struct {
			Choices []struct {
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
			Usage struct {
				CompletionTokens uint64 `json:"completion_tokens"`
			} `json:"usage"` // absent: 0, which the round reports as StatusSummaryTokenUsage
		}
		if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&out); err != nil {
			return lc.SummaryReply{}, err
		}
		if len(out.Choices) == 0 {
			return lc.SummaryReply{}, errors.New("chat completions: no choices")
		}
		stop := lc.StopUnknown
		switch out.Choices[0].FinishReason {
		case "stop":
			stop = lc.StopEnd
		case "length":
			stop = lc.StopLength
		}
		return lc.SummaryReply{Text: out.Choices[0].Message.Content, OutputTokens: out.Usage.CompletionTokens, Stop: stop}, nil
	}
}

// END README adapter

// BEGIN README round

func compactHistory(ctx context.Context, wire []byte) ([]byte, error) {
	in, err := lc.ParseInput(wire) // the history as a compaction input (SPEC §5)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	callModel := openAIChat(http.DefaultClient, "https://api.openai.com/v1", os.Getenv("OPENAI_API_KEY"), os.Getenv("SUMMARY_MODEL"))
	res, err := lc.Compact(ctx, in, callModel, lc.CompactOptions{
		KeepLast:  6, // keep at least the last 6 messages as they are
		OnAttempt: func(a lc.Attempt) { log.Printf("compaction attempt %d: %s", a.Number, a.Status.Name()) },
	})
	if err != nil {
		return nil, err // a closed input, invalid options, ctx's error, or the provider's
	}
	switch r := res.(type) {
	case *lc.Compacted:
		return r.Replacement, nil // the new transcript: wire messages, summary first after the system ones
	case *lc.KeepHistory:
		log.Printf("compaction skipped: %s", r.Reason)
	}
	return nil, nil // keep the history as it is
}

// END README round

// BEGIN README quick start

// compactMessages compacts the OpenAI Chat messages your loop holds (their JSON) into the new list.
func compactMessages(ctx context.Context, messages []byte) ([]byte, error) {
	conv, err := lc.FromOpenAIChat(messages) // the wire transcript, cut map and loss report (SPEC §16)
	if err != nil {
		return nil, err
	}
	defer conv.Close()
	in, err := conv.Input(lc.InputOptions{Provider: "openai", Model: "gpt-4.1-mini", MaxSummaryTokens: 2048, Revision: 1})
	if err != nil {
		return nil, err
	}
	defer in.Close()
	callModel := openAIChat(http.DefaultClient, "https://api.openai.com/v1", os.Getenv("OPENAI_API_KEY"), "gpt-4.1-mini")
	res, err := lc.Compact(ctx, in, callModel, lc.CompactOptions{KeepLast: 4}) // the summary is validated here
	if r, ok := res.(*lc.Compacted); ok {
		return r.Messages(messages) // your system message, the summary, the kept messages byte for byte
	}
	return messages, err // the history as it was
}

// END README quick start

// chatRequest is what the fake provider reads of a request.
type chatRequest struct {
	Model    string           `json:"model"`
	Messages []lc.ChatMessage `json:"messages"`
	// A pointer: the test checks that the adapter sent it.
	MaxTokens *uint64 `json:"max_tokens"`
}

// fakeOpenAI answers each POST /v1/chat/completions with the next canned body (a status code,
// then the JSON), recording the decoded requests.
type fakeOpenAI struct {
	t        *testing.T
	mu       sync.Mutex
	answers  []string
	requests []chatRequest
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" {
		f.t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		f.t.Errorf("request body: %v", err)
	}
	f.requests = append(f.requests, req)
	if len(f.requests) > len(f.answers) {
		f.t.Errorf("request %d: no answer left", len(f.requests))
		http.Error(w, "no answer", http.StatusInternalServerError)
		return
	}
	answer := f.answers[len(f.requests)-1]
	if strings.HasPrefix(answer, "HTTP ") {
		var code int
		fmt.Sscanf(answer, "HTTP %d", &code)
		http.Error(w, `{"error":{"message":"overloaded"}}`, code)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, answer)
}

// completion is a Chat Completions response body; usage < 0 leaves usage out.
func completion(content, finish string, usage int) string {
	body := map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-test",
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": content},
		}},
	}
	if usage >= 0 {
		body["usage"] = map[string]any{"prompt_tokens": 900, "completion_tokens": usage, "total_tokens": 900 + usage}
	}
	b, _ := json.Marshal(body)
	return string(b)
}

func serveOpenAI(t *testing.T, answers ...string) (*fakeOpenAI, *httptest.Server) {
	t.Helper()
	fake := &fakeOpenAI{t: t, answers: answers}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	if host, _, err := net.SplitHostPort(srv.Listener.Addr().String()); err != nil || host != "127.0.0.1" {
		t.Fatalf("the fake provider listens on %s", srv.Listener.Addr())
	}
	return fake, srv
}

func TestCompactOverOpenAIChatCompletions(t *testing.T) {
	// A reply cut at max_tokens, then the whole summary in a fence, as models like to send it.
	fake, srv := serveOpenAI(t,
		completion(roundSummary[:70], "length", 32),
		completion("```xml\n"+roundSummary+"\n```", "stop", 51))
	in := roundInput(t)
	var log []string
	res, err := lc.Compact(context.Background(), in, openAIChat(srv.Client(), srv.URL+"/v1", "test-key", "gpt-test"),
		lc.CompactOptions{KeepLast: 1, MaxTokens: 32, OnAttempt: func(a lc.Attempt) {
			log = append(log, fmt.Sprintf("attempt %d: %s (%s), stop %s, %d bytes", a.Number, a.Status.Name(), a.Class, a.Stop, a.ReplyBytes))
		}})
	c := compacted(t, res, err)
	if c.Summary != roundSummary || c.Cut != 5 {
		t.Errorf("summary %q, cut %d", c.Summary, c.Cut)
	}
	if err := in.VerifyReplacement(c.Cut, c.Replacement); err != nil {
		t.Errorf("replacement: %v", err)
	}
	want := []string{
		"attempt 1: LC_REPLY_TRUNCATED (LC_CLASS_RETRY), stop length, 70 bytes",
		fmt.Sprintf("attempt 2: LC_OK (LC_CLASS_OK), stop end, %d bytes", len(roundSummary)+11),
	}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Errorf("OnAttempt log:\n%s\nwant\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	// What went over the wire: the system prompt first, the head, then the retry turns; the
	// truncation doubled max_tokens from 32 to 64 (max_summary_tokens).
	if len(fake.requests) != 2 {
		t.Fatalf("%d requests", len(fake.requests))
	}
	head := roundDoc(roundMessages()[:5]...)
	for i, r := range fake.requests {
		wantTokens := []uint64{32, 64}[i]
		if r.Model != "gpt-test" || r.MaxTokens == nil || *r.MaxTokens != wantTokens || len(r.Messages) != 2+2*i ||
			r.Messages[0] != (lc.ChatMessage{Role: "system", Content: lc.SummaryInstructions()}) ||
			r.Messages[1] != (lc.ChatMessage{Role: "user", Content: head}) {
			t.Errorf("request %d: model %q, max_tokens %v, %d messages", i+1, r.Model, r.MaxTokens, len(r.Messages))
		}
	}
	retry := fake.requests[1].Messages
	if retry[2] != (lc.ChatMessage{Role: "assistant", Content: lc.WithheldReply}) || retry[3].Role != "user" ||
		!strings.Contains(retry[3].Content, "cut off") {
		t.Errorf("retry turns %+v", retry[2:])
	}
}

func TestCompactOverOpenAIFailures(t *testing.T) {
	in := roundInput(t)
	// No usage in the response: DISCARD at once, the reason says what to turn on.
	_, srv := serveOpenAI(t, completion(roundSummary, "stop", -1))
	res, err := lc.Compact(context.Background(), in, openAIChat(srv.Client(), srv.URL+"/v1", "test-key", "gpt-test"), lc.CompactOptions{})
	if k := keptHistory(t, res, err); k.Status != lc.StatusSummaryTokenUsage || !strings.Contains(k.Reason, "usage reporting") {
		t.Errorf("no usage: %+v", k)
	}
	// An HTTP error is CallModel's error: returned, or the history kept when asked.
	_, srv = serveOpenAI(t, "HTTP 529")
	res, err = lc.Compact(context.Background(), in, openAIChat(srv.Client(), srv.URL+"/v1", "test-key", "gpt-test"), lc.CompactOptions{})
	if res != nil || err == nil || !strings.Contains(err.Error(), "HTTP 529") {
		t.Errorf("HTTP 529: %#v, %v", res, err)
	}
	_, srv = serveOpenAI(t, "HTTP 500")
	res, err = lc.Compact(context.Background(), in, openAIChat(srv.Client(), srv.URL+"/v1", "test-key", "gpt-test"),
		lc.CompactOptions{OnError: lc.OnErrorKeepHistory})
	if k := keptHistory(t, res, err); k.ModelErr == nil || !strings.Contains(k.Reason, "*errors.errorString") || strings.Contains(k.Reason, "500") {
		t.Errorf("HTTP 500 kept: %+v", k)
	}
}

// The README shows the adapter this test runs, and the round (compactHistory, compiled here); the
// repository's README and this one the quick start (compactMessages).
func TestREADMEShowsTheTestedCode(t *testing.T) {
	source, err := os.ReadFile("openai_test.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	top, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if begin, end := "// BEGIN README quick start\n\n", "\n// END README quick start"; bytes.Contains(source, []byte(begin)) {
		i, j := bytes.Index(source, []byte(begin)), bytes.Index(source, []byte(end))
		code := "```go\n" + string(source[i+len(begin):j]) + "```\n"
		if !strings.Contains(string(top), code) {
			t.Errorf("../../README.md does not show the quick start as openai_test.go has it")
		}
	} else {
		t.Fatal("openai_test.go has no quick start markers")
	}
	for _, name := range []string{"adapter", "round", "quick start"} {
		begin, end := "// BEGIN README "+name+"\n\n", "\n// END README "+name
		i, j := bytes.Index(source, []byte(begin)), bytes.Index(source, []byte(end))
		if i < 0 || j < i {
			t.Fatalf("openai_test.go has no %s markers", name)
		}
		code := string(source[i+len(begin) : j])
		if !strings.Contains(string(readme), "```go\n"+code+"```\n") {
			t.Errorf("README.md does not show the %s as openai_test.go has it:\n%s", name, code)
		}
	}
}

// toServer sends every request to the fake provider instead of the host it names.
type toServer struct{ srv *httptest.Server }

func (s toServer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = "http", s.srv.Listener.Addr().String()
	return s.srv.Client().Transport.RoundTrip(r)
}

// compactMessages (the quick start) against the fake provider: a Chat list of six messages, the
// last four kept; the new list is the system message, the summary, then messages 2 to 5 as given.
func TestREADMEQuickStart(t *testing.T) {
	fake, srv := serveOpenAI(t, completion(roundSummary, "stop", 40))
	saved := http.DefaultClient
	http.DefaultClient = &http.Client{Transport: toServer{srv}}
	defer func() { http.DefaultClient = saved }()
	t.Setenv("OPENAI_API_KEY", "test-key")
	kept := []string{
		`{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]}`,
		`{"role": "tool", "tool_call_id": "c1", "content": "a b"}`,
		`{"role": "assistant", "content": "Two files."}`,
		`{"role": "user", "content": "Delete a."}`,
	}
	messages := `[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "List the files."}, ` +
		strings.Join(kept, ", ") + `]`
	got, err := compactMessages(context.Background(), []byte(messages))
	if err != nil || len(fake.requests) != 1 || fake.requests[0].Model != "gpt-4.1-mini" {
		t.Fatalf("%v, %d requests", err, len(fake.requests))
	}
	var summary bytes.Buffer
	enc := json.NewEncoder(&summary)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(roundSummary); err != nil {
		t.Fatal(err)
	}
	want := `[{"role": "system", "content": "Be brief."},{"role":"user","content":` +
		strings.TrimSpace(summary.String()) + `},` + strings.Join(kept, ",") + `]`
	if string(got) != want {
		t.Errorf("messages\n%s\nwant\n%s", got, want)
	}
}

// compactHistory (the README's round) against the fake provider, its requests redirected there.
func TestREADMERound(t *testing.T) {
	fake, srv := serveOpenAI(t, completion(roundSummary, "stop", 40))
	saved := http.DefaultClient
	http.DefaultClient = &http.Client{Transport: toServer{srv}}
	defer func() { http.DefaultClient = saved }()
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("SUMMARY_MODEL", "gpt-test")
	// Twelve messages: the six of the round, then three more exchanges; the last 6 are kept.
	messages := roundMessages()
	for i := 0; i < 3; i++ {
		messages = append(messages, m4Answer, m5User)
	}
	replacement, err := compactHistory(context.Background(), []byte(roundDoc(messages...)))
	if err != nil || len(fake.requests) != 1 || fake.requests[0].Model != "gpt-test" {
		t.Fatalf("%v, %d requests", err, len(fake.requests))
	}
	// R15.9: the system message, the summary message, then messages [6, 12) (6 is an answer).
	want := "[" + m0System + "," + summaryMessage(roundSummary) + "," +
		strings.Join([]string{m4Answer, m5User, m4Answer, m5User, m4Answer, m5User}, ",") + "]"
	if string(replacement) != want {
		t.Errorf("replacement\n%s\nwant\n%s", replacement, want)
	}
}
