// Package lbproxy is a small layer-4 load balancer: it accepts TCP
// connections and relays each to one healthy backend, round robin. The backend
// list can be replaced while it runs; backends that leave keep their open
// connections until those close, so a rolling replacement loses nothing the
// backend itself does not drop.
//
// It stands in for kind's API-server balancer and for simulated cloud load
// balancers.
package lbproxy
