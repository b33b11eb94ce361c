module rsgen.test/websubhub

go 1.22

require (
	github.com/notnotquinn/go-websub v0.0.0
	github.com/tomnomnom/linkheader v0.0.0-20180905144013-02ca5825eb80
)

require (
	github.com/google/uuid v1.3.0 // indirect
	github.com/rs/zerolog v1.26.1 // indirect
	golang.org/x/net v0.0.0-20211015210444-4f30a5c0130f // indirect
)

replace github.com/notnotquinn/go-websub => ../third_party/go-websub
