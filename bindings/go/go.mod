module loopcompact.example/loopcompact

go 1.23
