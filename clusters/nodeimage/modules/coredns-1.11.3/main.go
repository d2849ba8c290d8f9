// Command coredns is CoreDNS with its standard plugin set.
package main

import (
	_ "github.com/coredns/coredns/core/plugin" // the default plugins
	"github.com/coredns/coredns/coremain"
)

func main() { coremain.Run() }
