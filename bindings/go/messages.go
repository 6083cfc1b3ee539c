package loopcompact

// From a round's wire cut back to the host's own messages (SPEC G16.12): Compacted.Messages. The
// new list is the source's leading system messages, the summary as one user message of the
// format, then the kept source messages source[s:] (s the source cut of the round's cut), each
// kept element's bytes exactly as the caller gave them. When the wire merged the summary into the
// user message at the cut (R15.9: two user messages never meet), the new list merges it the same
// way: a new message whose content is the summary's text part followed by that message's content.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrNotConverted is returned by Compacted.Messages for a round whose Input was not made by
// Conversion.Input (ParseInput): use Compacted.Replacement.
var ErrNotConverted = errors.New("loopcompact: Messages needs a round whose input came from Conversion.Input; use Replacement")

// ErrSourceMismatch is wrapped by the error Compacted.Messages returns when source is not the list
// the conversion was made from: not a JSON array (for Responses, or one JSON string), or one of
// another length.
var ErrSourceMismatch = errors.New("loopcompact: Messages takes the source list the conversion was made from")

// sourceMap is what Conversion.Input keeps of its conversion for the round: no handle, no message.
type sourceMap struct {
	format      Format
	sourceLen   int
	sourceIndex []int    // per wire message; SourceSystem for the system parameter
	roles       []string // per wire message
	sourceCuts  []int    // per wire cut 0..n: its source cut, -1 where not allowed
}

// SourceCut is the source cut of the round's cut (SPEC G16.2): source[:s] was summarised (the
// leading system messages aside) and source[s:] kept. ok is false when the round's input did not
// come from Conversion.Input.
func (r *Compacted) SourceCut() (s int, ok bool) {
	if r.origin == nil || r.Cut >= uint64(len(r.origin.sourceCuts)) || r.origin.sourceCuts[r.Cut] < 0 {
		return 0, false
	}
	return r.origin.sourceCuts[r.Cut], true
}

// Messages returns the new history in the source's own format, for a round whose input came from
// Conversion.Input: source is the list the conversion was made from (the Chat messages, the
// Responses input, the Anthropic messages, the Gemini contents, the LangChain or AI SDK messages:
// a JSON array; its length is checked against Conversion.SourceLen).
//
// The result is a JSON array: the source's leading system messages (where the system prompt is a
// parameter, none: keep the parameter as it is), the summary as one user message, then the kept
// messages source[s:] (s = SourceCut()), each element byte for byte as source holds it. The
// summary message is {"role":"user","content":summary} (Chat, Anthropic, AI SDK; Responses, with
// "type":"message" first when the list's message items carry it), {"role":"user","parts":
// [{"text":summary}]} (Gemini), {"content":summary,"type":"human"} in the list's LangChain form.
// When the first kept message is the user message the wire merged the summary into, it is
// replaced by a new message with its fields and, as its content, the summary's text part followed
// by its own content (a string content as one text part).
//
// Errors: ErrNotConverted; ErrSourceMismatch (wrapped, saying the lengths, never the bytes).
func (r *Compacted) Messages(source []byte) ([]byte, error) {
	m := r.origin
	if m == nil {
		return nil, ErrNotConverted
	}
	s, ok := r.SourceCut()
	if !ok { // the round cuts only where the input allows (G16.2): a library bug
		return nil, fmt.Errorf("loopcompact: the round's cut %d is not a source boundary of its conversion", r.Cut)
	}
	var items []json.RawMessage
	trimmed := bytes.TrimSpace(source)
	if m.format == FormatOpenAIResponses && len(trimmed) > 0 && trimmed[0] == '"' {
		// A Responses input given as one string is one user message.
		if !json.Valid(trimmed) {
			return nil, fmt.Errorf("%w: it is not JSON", ErrSourceMismatch)
		}
		items = []json.RawMessage{append(append([]byte(`{"role":"user","content":`), trimmed...), '}')}
	} else if len(trimmed) == 0 || trimmed[0] != '[' || json.Unmarshal(trimmed, &items) != nil {
		return nil, fmt.Errorf("%w: it is not a JSON array", ErrSourceMismatch)
	}
	if len(items) != m.sourceLen {
		return nil, fmt.Errorf("%w: it has %d elements, the conversion was made from %d", ErrSourceMismatch, len(items), m.sourceLen)
	}

	// The leading system messages: the source messages of the wire's leading system messages.
	var leading []int
	for w := 0; w < len(m.roles) && m.roles[w] == "system"; w++ {
		if i := m.sourceIndex[w]; i != SourceSystem && (len(leading) == 0 || leading[len(leading)-1] != i) {
			leading = append(leading, i)
		}
	}
	cut := int(r.Cut)
	merge := cut < len(m.roles) && m.roles[cut] == "user" && m.sourceIndex[cut] == s
	var first []byte
	var err error
	if merge {
		first, err = mergedMessage(m.format, r.Summary, items[s])
		s++
	} else {
		first, err = summaryMessage(m.format, r.Summary, items)
	}
	if err != nil {
		return nil, err
	}

	n := 2 + len(first)
	for _, i := range leading {
		n += len(items[i]) + 1
	}
	for _, it := range items[s:] {
		n += len(it) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for _, i := range leading {
		out = append(append(out, items[i]...), ',')
	}
	out = append(out, first...)
	for _, it := range items[s:] {
		out = append(append(out, ','), it...)
	}
	return append(out, ']'), nil
}

// summaryMessage is the summary as one user message of the format; items tell the spelling where
// a format has several (a Responses list of typed items, a LangChain form).
func summaryMessage(f Format, summary string, items []json.RawMessage) ([]byte, error) {
	text, err := marshalText(summary)
	if err != nil {
		return nil, err
	}
	t := string(text)
	switch f {
	case FormatGemini:
		return []byte(`{"role":"user","parts":[{"text":` + t + `}]}`), nil
	case FormatOpenAIResponses:
		for _, it := range items {
			var probe struct {
				Role json.RawMessage `json:"role"`
				Type json.RawMessage `json:"type"`
			}
			if json.Unmarshal(it, &probe) == nil && probe.Role != nil && string(probe.Type) == `"message"` {
				return []byte(`{"type":"message","role":"user","content":` + t + `}`), nil
			}
		}
	case FormatLangChain:
		var like map[string]json.RawMessage
		if len(items) > 0 {
			_ = json.Unmarshal(items[0], &like) // not an object: the model_dump form
		}
		if _, ok := like["lc"]; ok {
			return []byte(`{"lc":1,"type":"constructor","id":["langchain","schema","messages","HumanMessage"],` +
				`"kwargs":{"content":` + t + `,"type":"human"}}`), nil
		}
		if _, ok := like["data"]; ok {
			return []byte(`{"type":"human","data":{"content":` + t + `,"type":"human"}}`), nil
		}
		return []byte(`{"content":` + t + `,"type":"human"}`), nil
	}
	return []byte(`{"role":"user","content":` + t + `}`), nil
}

// mergedMessage is message with the summary's text part before its content (in a LangChain
// message, the content of its data or kwargs): a new message, its other members as they were.
func mergedMessage(f Format, summary string, message json.RawMessage) ([]byte, error) {
	text, err := marshalText(summary)
	if err != nil {
		return nil, err
	}
	key, partType := "content", "text"
	switch f {
	case FormatGemini:
		key = "parts"
	case FormatOpenAIResponses:
		partType = "input_text"
	case FormatLangChain:
		members, err := objectMembers(message)
		if err != nil {
			return nil, err
		}
		if wrap := langchainWrapper(members); wrap != "" {
			for i := range members {
				if members[i].key == wrap {
					inner, err := mergedMessage(FormatOpenAIChat, summary, members[i].value)
					if err != nil {
						return nil, err
					}
					members[i].value = inner
					return writeObject(members), nil
				}
			}
		}
	}
	members, err := objectMembers(message)
	if err != nil {
		return nil, err
	}
	var head []byte
	if f == FormatGemini {
		head = append(append([]byte(`{"text":`), text...), '}')
	} else {
		head = append(append([]byte(`{"type":"`+partType+`","text":`), text...), '}')
	}
	for i := range members {
		if members[i].key == key {
			members[i].value = prepend(head, members[i].value, partType, f == FormatGemini)
			return writeObject(members), nil
		}
	}
	members = append(members, member{key: key, value: append(append([]byte{'['}, head...), ']')})
	return writeObject(members), nil
}

// langchainWrapper is the member holding a LangChain message's fields: "kwargs" (dumpd: an "lc"
// member), "data" (messages_to_dict), or "" (model_dump: the message itself).
func langchainWrapper(members []member) string {
	has := func(k string) bool {
		for _, m := range members {
			if m.key == k {
				return true
			}
		}
		return false
	}
	switch {
	case has("lc") && has("kwargs"):
		return "kwargs"
	case has("data"):
		return "data"
	}
	return ""
}

// prepend is the content value with head as its first part: an array keeps its elements' bytes, a
// string becomes one text part, null none.
func prepend(head, content json.RawMessage, partType string, gemini bool) json.RawMessage {
	c := bytes.TrimSpace(content)
	out := append([]byte{'['}, head...)
	switch {
	case len(c) > 0 && c[0] == '[':
		inner := bytes.TrimSpace(c[1 : len(c)-1])
		if len(inner) > 0 {
			out = append(append(out, ','), inner...)
		}
	case len(c) > 0 && c[0] == '"' && !gemini:
		out = append(append(append(out, `,{"type":"`+partType+`","text":`...), c...), '}')
	}
	return append(out, ']')
}

// member is one member of a JSON object: its key (decoded) and its value's exact bytes.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers are the members of a JSON object in order.
func objectMembers(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("%w: the message to merge the summary into is not a JSON object", ErrSourceMismatch)
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: a message is not JSON", ErrSourceMismatch)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%w: a message is not JSON", ErrSourceMismatch)
		}
		out = append(out, member{key: tok.(string), value: v})
	}
	return out, nil
}

// writeObject writes members as a JSON object (keys re-encoded, values as they are).
func writeObject(members []member) []byte {
	out := []byte{'{'}
	for i, m := range members {
		if i > 0 {
			out = append(out, ',')
		}
		k, _ := marshalText(m.key) // a decoded key is valid UTF-8
		out = append(append(append(out, k...), ':'), m.value...)
	}
	return append(out, '}')
}
