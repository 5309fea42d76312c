package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// product is one generated row, before either server stores it.
type product struct {
	Title       string
	SKU         string
	Description string
	PriceCents  int64 // 1.00 .. 999.99
	Stock       int64 // 0 .. 999
	IsActive    bool
}

// PriceString is the price as the API sends it ("12.34").
func (p product) PriceString() string { return centsString(p.PriceCents) }

func centsString(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// Words are built from these syllables: the consonants leave out q, x, z,
// j, w and y, which only the marker words below use, so a marker never
// occurs inside a vocabulary word and its hit count is exact by
// construction.
var (
	consonants = []string{"b", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v"}
	vowels     = []string{"a", "e", "i", "o", "u"}
)

// marker is a search term put into a known share of the rows.
type marker struct {
	Word string
	// PerMille is the chance, in thousandths, that a row carries the word
	// (half in the title, half in the description).
	PerMille int
}

// markers are the search terms with a planned hit rate. "xylophone" is
// in no row: its search still scans every row of the team (the total
// count needs them all), the worst case for an unindexed LIKE. The common
// ones (10%, 50%, 95%) are the worst case for an index.
var markers = []marker{
	{"quartz", 20},   // 2%
	{"zephyr", 5},    // 0.5%
	{"jackdaw", 1},   // 0.1%
	{"xylophone", 0}, // none
	{"wyvern", 100},  // 10%
	{"jigsaw", 500},  // 50%
	{"yonder", 950},  // 95%
}

// dataset is the deterministic data both servers are seeded with: the
// same rows in the same order from the same seed.
type dataset struct {
	Vocab []string
	// Main holds the rows of the loaded team, Other those of the second
	// team (a tenth as many), which only proves that lists are team-scoped.
	Main, Other []product
	// Terms are the search terms the search workload cycles through.
	Terms []string
}

// newDataset generates main rows for the loaded team and main/10 for the
// other team.
func newDataset(main int) *dataset {
	r := rand.New(rand.NewPCG(20261121, 8))
	d := &dataset{Vocab: vocabulary(r, 1500)}
	d.Main = d.rows(r, "A", main)
	d.Other = d.rows(r, "B", main/10)
	for _, m := range markers {
		d.Terms = append(d.Terms, m.Word)
	}
	// Two ordinary vocabulary words (substrings of others count too: the
	// expected counts are computed by scanning, not assumed).
	d.Terms = append(d.Terms, d.Vocab[7], d.Vocab[911])
	return d
}

// vocabulary makes n distinct pseudo-words of two or three syllables.
func vocabulary(r *rand.Rand, n int) []string {
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var b strings.Builder
		for range 2 + r.IntN(2) {
			b.WriteString(consonants[r.IntN(len(consonants))])
			b.WriteString(vowels[r.IntN(len(vowels))])
		}
		if b.Len() < 5 {
			b.WriteString(consonants[r.IntN(len(consonants))])
		}
		w := b.String()
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func (d *dataset) rows(r *rand.Rand, tag string, n int) []product {
	out := make([]product, n)
	for i := range out {
		title := d.words(r, 3+r.IntN(3))
		desc := d.words(r, 14+r.IntN(12))
		for _, m := range markers {
			if m.PerMille > 0 && r.IntN(1000) < m.PerMille {
				if r.IntN(2) == 0 {
					title = append(title, m.Word)
				} else {
					desc = append(desc, m.Word)
				}
			}
		}
		title[0] = strings.ToUpper(title[0][:1]) + title[0][1:]
		out[i] = product{
			Title:       strings.Join(title, " "),
			SKU:         fmt.Sprintf("SKU-%s-%07d", tag, i),
			Description: strings.Join(desc, " ") + ".",
			PriceCents:  100 + r.Int64N(99900),
			Stock:       r.Int64N(1000),
			IsActive:    r.IntN(10) != 0,
		}
	}
	return out
}

func (d *dataset) words(r *rand.Rand, n int) []string {
	w := make([]string, n)
	for i := range w {
		w[i] = d.Vocab[r.IntN(len(d.Vocab))]
	}
	return w
}

// Matches counts the main team's rows a case-insensitive substring search
// for term finds in title, sku or description: what both servers must
// answer as totalItems.
func (d *dataset) Matches(term string) int {
	term = strings.ToLower(term)
	n := 0
	for _, p := range d.Main {
		if strings.Contains(strings.ToLower(p.Title), term) || strings.Contains(strings.ToLower(p.SKU), term) ||
			strings.Contains(strings.ToLower(p.Description), term) {
			n++
		}
	}
	return n
}
