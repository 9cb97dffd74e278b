module quire.example/syncserver

go 1.19
