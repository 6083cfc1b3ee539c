module loopcompact.test/gofloat

go 1.23
