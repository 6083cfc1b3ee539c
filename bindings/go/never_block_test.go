package loopcompact_test

// Transcript safety that never blocks (SPEC §16.9) through the Go API: the pending tail, every
// violation, the repair plan and allowed cuts; expected values worked out from G16.13–G16.16.

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

// pendingInput is issue 27's case: the last assistant turn (message 4) waits for c's result.
// 0 user, 1 call(a), 2 tool a, 3 user, 4 call(b, c), 5 tool b.
func pendingInput(t *testing.T) *lc.Input {
	return mustParse(t, wireWith(user("q"), call("a"), toolResult("a"), user("q2"), call("b", "c"), toolResult("b")))
}

func TestPendingTailIsCutBefore(t *testing.T) {
	in := pendingInput(t)
	if _, err := in.SafeCut(0); asError(t, err).Status != lc.StatusPairingUnansweredCall {
		t.Fatalf("SafeCut: %v", err)
	}
	pending := lc.CutOptions{PendingTail: true}
	for keep, want := range map[uint64]uint64{0: 4, 2: 4, 3: 3, 4: 1, 9: 0} {
		if got, err := in.SafeCutWith(keep, pending); err != nil || got != want {
			t.Errorf("SafeCutWith(%d): %d, %v; want %d", keep, got, err, want)
		}
	}
	for cut, want := range map[uint64]lc.Status{0: lc.StatusOK, 2: lc.StatusCutUnsafe, 4: lc.StatusOK, 5: lc.StatusCutUnsafe, 7: lc.StatusInvalidArgument} {
		err := in.CheckCutWith(cut, pending)
		if got := statusOf(err); got != want {
			t.Errorf("CheckCutWith(%d): %v, want %v", cut, err, want)
		}
	}
	// G16.16: the allowed cuts; a list of the wrong length is the caller's fault.
	allowed := []bool{true, true, true, true, false, false, false}
	if got, err := in.SafeCutWith(0, lc.CutOptions{PendingTail: true, Allowed: allowed}); err != nil || got != 3 {
		t.Errorf("allowed: %d, %v", got, err)
	}
	if _, err := in.SafeCutWith(0, lc.CutOptions{Allowed: allowed[:6]}); statusOf(err) != lc.StatusInvalidArgument {
		t.Errorf("a short allowed list: %v", err)
	}
	// An empty list is a list of length 0, not the absence of one.
	if _, err := in.SafeCutWith(0, lc.CutOptions{Allowed: []bool{}}); statusOf(err) != lc.StatusInvalidArgument {
		t.Errorf("an empty allowed list: SafeCutWith %v", err)
	}
	if err := in.CheckCutWith(1, lc.CutOptions{Allowed: []bool{}}); statusOf(err) != lc.StatusInvalidArgument {
		t.Errorf("an empty allowed list: CheckCutWith %v", err)
	}
	n, err1 := in.MessageCount()
	m, err2 := in.MaxSummaryTokens()
	s, err3 := in.LeadingSystems()
	if n != 6 || m != 32 || s != 0 || errors.Join(err1, err2, err3) != nil {
		t.Errorf("counts: %d %d %d", n, m, s)
	}
}

// The round keeps the pending turn: it summarises [0, 4) and the replacement ends with messages
// 4 and 5 unchanged; NoPendingTail gives §14's verdict.
func TestCompactKeepsAPendingTail(t *testing.T) {
	in := pendingInput(t)
	s := &script{t: t, steps: []step{ok(roundSummary, 10)}}
	res, err := lc.Compact(context.Background(), in, s.call, lc.CompactOptions{})
	c := compacted(t, res, err)
	if c.Cut != 4 {
		t.Fatalf("cut %d", c.Cut)
	}
	var rebuilt []json.RawMessage
	if err := json.Unmarshal(c.Replacement, &rebuilt); err != nil || len(rebuilt) != 3 {
		t.Fatalf("replacement: %v %s", err, c.Replacement)
	}
	// The kept messages in canonical bytes (E7.3: an assistant message with "usage":null).
	pendingTurn := `{"role":"assistant","blocks":[{"type":"tool_use","id":"b","name":"ls","input":{}},{"type":"tool_use","id":"c","name":"ls","input":{}}],"usage":null}`
	if string(rebuilt[1]) != pendingTurn || string(rebuilt[2]) != toolResult("b") {
		t.Errorf("the pending turn changed: %s", c.Replacement)
	}
	never := func(context.Context, lc.SummaryRequest) (lc.SummaryReply, error) {
		t.Fatal("the model was called")
		return lc.SummaryReply{}, nil
	}
	res, err = lc.Compact(context.Background(), in, never, lc.CompactOptions{NoPendingTail: true})
	if k := keptHistory(t, res, err); k.Status != lc.StatusPairingUnansweredCall {
		t.Errorf("NoPendingTail: %+v", k)
	}
}

func TestPairingViolationsAndRepair(t *testing.T) {
	// 0 user, 1 call(a, b), 2 tool a, 3 tool x (orphan), 4 tool a (second result), 5 user; b lost.
	in := mustParse(t, wireWith(user("q"), call("a", "b"), toolResult("a"), toolResult("x"), toolResult("a"), user("q2")))
	vs, err := in.PairingViolations()
	want := []lc.Violation{
		{Status: lc.StatusPairingUnansweredCall, Message: 1, Block: 1},
		{Status: lc.StatusPairingOrphanResult, Message: 3, Block: lc.NoBlock},
		{Status: lc.StatusPairingDuplicateResult, Message: 4, Block: lc.NoBlock},
	}
	if err != nil || len(vs) != len(want) {
		t.Fatalf("%v %+v", err, vs)
	}
	for i := range want {
		want[i].Offset = vs[i].Offset
		if vs[i] != want[i] || vs[i].Offset == 0 {
			t.Errorf("violation %d: %+v, want %+v", i, vs[i], want[i])
		}
	}
	if first := statusOf(in.CheckPairing()); first != vs[0].Status {
		t.Errorf("the first violation %v is not CheckPairing's %v", vs[0].Status, first)
	}
	plan, err := in.RepairPlan(false)
	text := "[no result was recorded for this tool call]"
	// b's result goes after the call's message and the tool messages that follow it: before 5.
	wantPlan := []lc.Repair{
		{Action: lc.RepairDropResult, Message: 3},
		{Action: lc.RepairDropResult, Message: 4},
		{Action: lc.RepairAddResult, Before: 5, CallMessage: 1, CallBlock: 1, ToolUseID: "b", Text: text},
	}
	if err != nil || !reflect.DeepEqual(plan, wantPlan) {
		t.Fatalf("plan: %v %+v", err, plan)
	}
	repaired, err := in.RepairedTranscript(false)
	if err != nil {
		t.Fatal(err)
	}
	synthetic := `{"role":"tool","blocks":[{"type":"text","text":"` + text + `"}],"tool_use_id":"b","is_error":true}`
	wantRepaired := "[" + user("q") + "," + `{"role":"assistant","blocks":[{"type":"tool_use","id":"a","name":"ls","input":{}},{"type":"tool_use","id":"b","name":"ls","input":{}}],"usage":null}` +
		"," + toolResult("a") + "," + synthetic + "," + user("q2") + "]"
	if string(repaired) != wantRepaired {
		t.Errorf("repaired:\n%s\nwant\n%s", repaired, wantRepaired)
	}
	var msgs []json.RawMessage
	_ = json.Unmarshal(repaired, &msgs)
	var parts []string
	for _, m := range msgs {
		parts = append(parts, string(m))
	}
	if err := mustParse(t, wireWith(parts...)).CheckPairing(); err != nil {
		t.Errorf("the repaired transcript fails S14.3: %v", err)
	}
	// A repeated id has no plan.
	repeated := mustParse(t, wireWith(user("q"), call("a"), toolResult("a"), call("a"), toolResult("a")))
	if _, err := repeated.RepairPlan(false); statusOf(err) != lc.StatusPairingDuplicateID {
		t.Errorf("repeated id: %v", err)
	}
	// Behind another first violation (b of message 0 unanswered) too.
	behind := mustParse(t, wireWith(call("a", "b"), toolResult("b"), call("a")))
	if _, err := behind.RepairPlan(true); statusOf(err) != lc.StatusPairingDuplicateID {
		t.Errorf("repeated id behind a 500: %v", err)
	}
	// G16.15: with the pending tail, a call answered inside a dropped message is not pending.
	holder := `{"role":"tool","blocks":[{"type":"tool_result","tool_use_id":"a","content":[],"is_error":false}],"tool_use_id":"x","is_error":false}`
	lost, err := mustParse(t, wireWith(user("go"), call("a"), holder)).RepairPlan(true)
	wantLost := []lc.Repair{
		{Action: lc.RepairDropResult, Message: 2},
		{Action: lc.RepairAddResult, Before: 3, CallMessage: 1, CallBlock: 0, ToolUseID: "a", Text: text},
	}
	if err != nil || !reflect.DeepEqual(lost, wantLost) {
		t.Errorf("a result in a dropped message: %v %+v", err, lost)
	}
	if vs, err := mustParse(t, wireWith(user("q"))).PairingViolations(); vs != nil || err != nil {
		t.Errorf("well paired: %v %v", vs, err)
	}
}

// statusOf is the status of an error from the package (StatusOK for nil, -1 for another error).
func statusOf(err error) lc.Status {
	var e *lc.Error
	switch {
	case err == nil:
		return lc.StatusOK
	case errors.As(err, &e):
		return e.Status
	}
	return -1
}
