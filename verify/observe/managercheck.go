package observe

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// managerCheckTimeout bounds the look at each given manager before
// observing.
const managerCheckTimeout = 5 * time.Second

// CheckManagers asks each manager given, once and in parallel before
// anything is observed, for each path it will be sampled at: /healthz,
// and /metrics where the reach has it. A manager that refuses, whose
// certificate is not trusted or that does not answer in time would be no
// evidence at all, and the error says what to give. One that is down
// (refused, closed at once: it may start later, on a node still to join)
// is fine.
func CheckManagers(ctx context.Context, r Reach) error {
	eps, _ := r.Fixed()
	metrics, unavailable := r.Metrics()
	asks := []managerAsk{{path: anonymousPath, mr: r.Health(), refused: "the manager refuses an anonymous /healthz, which its authorization allows by default (--authorization-always-allow-paths changed?)"}}
	if unavailable == "" {
		asks = append(asks, managerAsk{path: "/metrics", mr: metrics,
			refused: "the manager refuses this identity (give --manager-token FILE, or bind the roles of --print-rbac to the kubeconfig's identity)"})
	}
	errs := make([]error, len(eps))
	var wg sync.WaitGroup
	for i, ep := range eps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = checkManagerRetrying(ctx, asks, ep)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// errUntrusted: the manager's certificate is not one the CA verifies.
var errUntrusted = errors.New("its certificate is not one --manager-ca verifies")

// managerAsk is one path asked of each manager before observing, through
// the reach that samples it, and what a 401 or 403 there means.
type managerAsk struct {
	path    string
	mr      ManagerReach
	refused string
}

// managerCheckTries: a manager that has just restarted refuses every
// identity for a second or two (its delegated authentication is not ready
// yet), so a refusal is asked again before it is an error. A certificate
// not trusted is not asked again: it stays untrusted.
const managerCheckTries = 3

func checkManagerRetrying(ctx context.Context, asks []managerAsk, ep Endpoint) error {
	var err error
	for try := 1; try <= managerCheckTries; try++ {
		if err = checkManager(ctx, asks, ep); err == nil || try == managerCheckTries || errors.Is(err, errUntrusted) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
	return err
}

func checkManager(ctx context.Context, asks []managerAsk, ep Endpoint) error {
	for _, a := range asks {
		err := a.mr.Stream(ctx, ep, a.path, managerCheckTimeout, func(status int, _ io.Reader) error {
			switch status {
			case http.StatusOK:
				return nil
			case http.StatusUnauthorized, http.StatusForbidden:
				return fmt.Errorf("HTTP %d: %s", status, a.refused)
			}
			return fmt.Errorf("HTTP %d", status)
		})
		var uerr x509.UnknownAuthorityError
		switch {
		case err == nil || down(err):
		case errors.As(err, &uerr) || strings.Contains(err.Error(), "x509:"):
			return fmt.Errorf("%s at %s%s: %w: %w (without --manager-ca only the anonymous /healthz is asked, unverified)", ep.Manager, ep.Instance, a.path, errUntrusted, err)
		default:
			return fmt.Errorf("%s at %s%s: %w", ep.Manager, ep.Instance, a.path, err)
		}
	}
	return nil
}
