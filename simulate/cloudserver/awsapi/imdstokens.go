package awsapi

import (
	"container/heap"
	"time"
)

// maxTokensPerInstance bounds the live session tokens of one instance. A
// client keeps its token until it nears expiry (aws-sdk-go's ec2metadata
// tokenProvider), so an instance holds one a process that asks; past the
// bound the instance is throttled (429) until some expire, and no caller
// can grow the table beyond the bound for every instance.
const maxTokensPerInstance = 1024

// tokenTable holds the live session tokens: indexed by token for the
// lookup, in an expiry heap for the sweep, counted by instance for the
// bound. Issuing and checking cost O(log n) each, never a scan.
type tokenTable struct {
	byToken map[string]*tokenLease
	expiry  leaseHeap
	perIP   map[string]int
	// swept counts the leases the sweeps removed or looked at, for
	// tests: each issue looks at one lease more than it removes.
	swept int
}

type tokenLease struct {
	token, ip string
	expires   time.Time
}

func newTokenTable() *tokenTable {
	return &tokenTable{byToken: map[string]*tokenLease{}, perIP: map[string]int{}}
}

// issue records token for ip until expires; false when ip already holds
// maxTokensPerInstance live tokens.
func (t *tokenTable) issue(token, ip string, now, expires time.Time) bool {
	t.sweep(now)
	if t.perIP[ip] >= maxTokensPerInstance {
		return false
	}
	l := &tokenLease{token: token, ip: ip, expires: expires}
	t.byToken[token] = l
	t.perIP[ip]++
	heap.Push(&t.expiry, l)
	return true
}

// valid: token was issued to ip and has not expired at now.
func (t *tokenTable) valid(token, ip string, now time.Time) bool {
	l, ok := t.byToken[token]
	return ok && l.ip == ip && !now.After(l.expires)
}

// sweep removes the leases expired at now, soonest first, stopping at the
// first live one.
func (t *tokenTable) sweep(now time.Time) {
	for t.expiry.Len() > 0 {
		t.swept++
		l := t.expiry[0]
		if !now.After(l.expires) {
			return
		}
		heap.Pop(&t.expiry)
		delete(t.byToken, l.token)
		if t.perIP[l.ip]--; t.perIP[l.ip] == 0 {
			delete(t.perIP, l.ip)
		}
	}
}

func (t *tokenTable) len() int { return len(t.byToken) }

// leaseHeap orders leases by expiry (container/heap).
type leaseHeap []*tokenLease

func (h leaseHeap) Len() int           { return len(h) }
func (h leaseHeap) Less(i, j int) bool { return h[i].expires.Before(h[j].expires) }
func (h leaseHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *leaseHeap) Push(x any)        { *h = append(*h, x.(*tokenLease)) }

func (h *leaseHeap) Pop() any {
	old := *h
	l := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return l
}
