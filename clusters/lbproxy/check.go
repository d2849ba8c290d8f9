package lbproxy

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
)

// HTTPCheck returns a checker that GETs path and wants a 200. With useTLS the
// server certificate is not verified: health is all that is asked.
func HTTPCheck(path string, useTLS bool) Checker {
	scheme := "http"
	if useTLS {
		scheme = "https"
	}
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // health probe only
		DisableKeepAlives: true,
	}}
	return func(ctx context.Context, address string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+"://"+address+path, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s%s: status %d", address, path, resp.StatusCode)
		}
		return nil
	}
}
