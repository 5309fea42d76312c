package main

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeCORSOriginLetsThosePagesCallTheAPI(t *testing.T) {
	t.Parallel()
	apiURL, token := startDemo(t, "--cors-origin", "http://localhost:5173, https://app.example.com", "--cors-origin", "https://admin.example.com")
	tests := []struct {
		origin  string
		allowed bool
	}{
		{"http://localhost:5173", true},
		{"https://app.example.com", true},
		{"https://admin.example.com", true},
		{"https://evil.example", false},
	}
	for _, tt := range tests {
		name := "a preflight from " + tt.origin + " is allowed"
		if !tt.allowed {
			name = "a preflight from " + tt.origin + " is not allowed"
		}
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodOptions, apiURL+"/teams/acme/shop-products", nil)
			req.Header.Set("Origin", tt.origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "authorization,content-type")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			want := ""
			if tt.allowed {
				want = tt.origin
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); resp.StatusCode != http.StatusNoContent || got != want {
				t.Errorf("got %d with Access-Control-Allow-Origin %q, want 204 with %q", resp.StatusCode, got, want)
			}
		})
	}
	t.Run("a bearer request from an allowed origin can be read by its page", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, apiURL+"/teams/acme/shop-products", nil)
		req.Header.Set("Origin", "https://app.example.com")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Access-Control-Allow-Origin"); resp.StatusCode != 200 || got != "https://app.example.com" {
			t.Errorf("got %d with Access-Control-Allow-Origin %q, want 200 with https://app.example.com", resp.StatusCode, got)
		}
	})
}

func TestServeWithoutCORSOriginAnswersPreflights405(t *testing.T) {
	t.Parallel()
	apiURL, _ := startDemo(t)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodOptions, apiURL+"/teams/acme/shop-products", nil)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Access-Control-Allow-Origin"); resp.StatusCode != http.StatusMethodNotAllowed || got != "" {
		t.Errorf("got %d with Access-Control-Allow-Origin %q, want 405 without it", resp.StatusCode, got)
	}
}

func TestServeRefusesAMalformedCORSOrigin(t *testing.T) {
	t.Parallel()
	var stdout, stderr strings.Builder
	code := run(context.Background(), []string{"serve", "--demo", "--db", filepath.Join(t.TempDir(), "kit.db"),
		"--addr", "127.0.0.1:0", "--cors-origin", "app.example.com"}, &stdout, &stderr)
	want := `kit serve: kit: Config.CORS.AllowedOrigins: "app.example.com" is not an origin such as https://app.example.com` + "\n"
	if code != exitFail || stderr.String() != want {
		t.Errorf("got exit status %d and stderr %q, want %d and %q", code, stderr.String(), exitFail, want)
	}
	if stdout.String() != "" {
		t.Errorf("got stdout %q, want nothing (no server started)", stdout.String())
	}
}
