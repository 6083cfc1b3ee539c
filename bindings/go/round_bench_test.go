package loopcompact_test

// What a round costs beyond the library calls it makes (issue 26: at most 10 % more with an
// instant model): Compact against the same calls made by hand (SafeCut, EncodeHeadWithin,
// ValidateReply with cleanup, BuildReplacement), on the round input with a 4 KB summary in a fence.
// Run from bindings/go:
//
//	go test -run='^$' -bench='Round' -benchtime=2s -count=5
//
// The Realistic pair runs the same on the realistic 1 MiB transcript.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

// roundBench is the round input with room for a 4 KB summary (max_summary_tokens 2048), and the
// fenced reply an instant model returns.
func roundBench(b *testing.B) (*lc.Input, string) {
	b.Helper()
	doc := strings.Replace(roundDoc(roundMessages()...), `"max_summary_tokens":64}`, `"max_summary_tokens":2048}`, 1)
	in, err := lc.ParseInput([]byte(doc))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close() })
	return in, "```xml\n" + string(summary4KB) + "\n```\n"
}

func BenchmarkRoundCompact(b *testing.B) {
	in, reply := roundBench(b)
	b.SetBytes(int64(len(reply)))
	benchCompact(b, in, reply, 1)
}

func BenchmarkRoundCalls(b *testing.B) {
	in, reply := roundBench(b)
	b.SetBytes(int64(len(reply)))
	benchCalls(b, in, reply, 1, 16*2048)
}

// benchCompact runs Compact with an instant model that returns reply, keeping keepLast messages.
func benchCompact(b *testing.B, in *lc.Input, reply string, keepLast uint64) {
	model := func(context.Context, lc.SummaryRequest) (lc.SummaryReply, error) {
		return lc.SummaryReply{Text: reply, OutputTokens: 900, Stop: lc.StopEnd}, nil
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res, err := lc.Compact(context.Background(), in, model, lc.CompactOptions{KeepLast: keepLast})
		if _, ok := res.(*lc.Compacted); !ok || err != nil {
			b.Fatal(res, err)
		}
	}
}

// benchCalls makes the round's library calls by hand: SafeCut, EncodeHeadWithin, ValidateReply
// with cleanup (maxReplyBytes, as Compact's default: 16 per max_summary_tokens), BuildReplacement.
func benchCalls(b *testing.B, in *lc.Input, reply string, keepLast uint64, maxReplyBytes uint64) {
	opts := lc.ReplyOptions{OutputTokens: 900, Stop: lc.StopEnd, MaxReplyBytes: maxReplyBytes, Trim: true, Unfence: true}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		cut, err := in.SafeCut(keepLast)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := in.EncodeHeadWithin(cut, 1<<62); err != nil {
			b.Fatal(err)
		}
		summary, err := in.ValidateReply([]byte(reply), opts)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := in.BuildReplacement(cut, summary); err != nil {
			b.Fatal(err)
		}
	}
}

// The same two on the realistic 1 MiB transcript (`make_transcript.py`: the size at which a host
// compacts), keeping its last 4 messages, with its max_summary_tokens (4096).
var realisticRound struct {
	once sync.Once
	wire []byte
	why  string
}

func roundBenchRealistic(b *testing.B) (*lc.Input, string) {
	b.Helper()
	realisticRound.once.Do(func() {
		script := filepath.Join(benchInputs, "make_transcript.py")
		if _, err := os.Stat(script); err != nil {
			realisticRound.why = "benches/gen absent (the module outside its repository)"
			return
		}
		out, err := exec.Command("python3", script, "1048576").Output()
		if err != nil {
			realisticRound.why = fmt.Sprintf("python3 %s: %v", script, err)
			return
		}
		realisticRound.wire = out
	})
	if realisticRound.wire == nil {
		b.Skip("omitted: " + realisticRound.why)
	}
	in, err := lc.ParseInput(realisticRound.wire)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close() })
	return in, "```xml\n" + string(summary4KB) + "\n```\n"
}

func BenchmarkRoundCompactRealistic(b *testing.B) {
	in, reply := roundBenchRealistic(b)
	b.SetBytes(int64(len(realisticRound.wire)))
	benchCompact(b, in, reply, 4)
}

func BenchmarkRoundCallsRealistic(b *testing.B) {
	in, reply := roundBenchRealistic(b)
	b.SetBytes(int64(len(realisticRound.wire)))
	benchCalls(b, in, reply, 4, 16*4096)
}
