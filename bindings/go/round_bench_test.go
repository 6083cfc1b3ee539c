package loopcompact_test

// What a round costs beyond the library calls it makes (issue 26: at most 10 % more with an
// instant model): Compact against the same calls made by hand (SafeCut, EncodeHeadWithin,
// ValidateReply with cleanup, BuildReplacement), on the round input with a 4 KB summary in a fence.
// Run from bindings/go:
//
//	go test -run='^$' -bench='Round' -benchtime=2s -count=5

import (
	"context"
	"strings"
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
	model := func(context.Context, lc.SummaryRequest) (lc.SummaryReply, error) {
		return lc.SummaryReply{Text: reply, OutputTokens: 900, Stop: lc.StopEnd}, nil
	}
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res, err := lc.Compact(context.Background(), in, model, lc.CompactOptions{KeepLast: 1})
		if _, ok := res.(*lc.Compacted); !ok || err != nil {
			b.Fatal(res, err)
		}
	}
}

func BenchmarkRoundCalls(b *testing.B) {
	in, reply := roundBench(b)
	opts := lc.ReplyOptions{OutputTokens: 900, Stop: lc.StopEnd, MaxReplyBytes: 16 * 2048, Trim: true, Unfence: true}
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		cut, err := in.SafeCut(1)
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
