module github.com/loopcompact/loopcompact/bindings/go

go 1.23
