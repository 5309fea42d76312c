package main

import (
	"math/rand/v2"
	"net/url"
	"strconv"
)

// searchRates are the search workloads of one term each, by the share of
// the loaded team's rows the term hits (the markers' planned rates; the
// report prints the exact shares). Each is a workload of its own, so that
// kit's search is compared with the baseline's scan at every hit rate
// instead of in a mix that the cheap terms dominate.
var searchRates = []struct {
	workload, term string
}{
	{"search-0.1%", "jackdaw"},
	{"search-2%", "quartz"},
	{"search-10%", "wyvern"},
	{"search-50%", "jigsaw"},
	{"search-95%", "yonder"},
}

// searchRateWorkloads are the names of the one-term search workloads.
func searchRateWorkloads() []string {
	out := make([]string, len(searchRates))
	for i, s := range searchRates {
		out[i] = s.workload
	}
	return out
}

// searchRateWorkload returns the one-term search workload name (pages 1
// to 5 of 20, newest first, with the total count), or false when name is
// not one.
func searchRateWorkload(name string) (workload, bool) {
	for _, s := range searchRates {
		if s.workload != name {
			continue
		}
		base := "?search=" + url.QueryEscape(s.term) + "&pageSize=20&page="
		pages := make([]string, 5)
		for i := range pages {
			pages[i] = base + strconv.Itoa(i+1)
		}
		return workload{name: name, want: 200, next: func(_ *rand.Rand, n int64) (request, bool) {
			return request{method: "GET", path: pages[n%int64(len(pages))]}, true
		}}, true
	}
	return workload{}, false
}
