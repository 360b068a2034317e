package chart

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
)

// Palette is the colour of the i-th series: Okabe and Ito's colour-blind
// safe set, black last.
var Palette = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"}

// Color returns the i-th palette colour, cycling.
func Color(i int) string { return Palette[i%len(Palette)] }

// Panel is one chart drawn into a rectangle of a page.
type Panel interface {
	draw(c *canvas, x, y, w, h float64)
}

// Page lays out panels in a grid of cols columns under a title.
type Page struct {
	Title  string
	Cols   int     // panels per row (0: 1)
	PanelW float64 // width of one panel in px (0: 760)
	PanelH float64 // height of one panel in px (0: 380)
	Panels []Panel
}

const titleH = 28

// Write renders the page as an SVG document.
func (p Page) Write(w io.Writer) error {
	cols := max(p.Cols, 1)
	pw, ph := p.PanelW, p.PanelH
	if pw <= 0 {
		pw = 760
	}
	if ph <= 0 {
		ph = 380
	}
	rows := (len(p.Panels) + cols - 1) / cols
	top := 0.0
	if p.Title != "" {
		top = titleH
	}
	W, H := pw*float64(cols), top+ph*float64(max(rows, 1))
	c := &canvas{w: bufio.NewWriter(w)}
	c.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="12">`+"\n", num(W), num(H), num(W), num(H))
	c.printf(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	if p.Title != "" {
		c.text(W/2, 19, "middle", 15, "", p.Title)
	}
	for i, pn := range p.Panels {
		r, col := i/cols, i%cols
		pn.draw(c, float64(col)*pw, top+float64(r)*ph, pw, ph)
	}
	c.printf("</svg>\n")
	if c.err != nil {
		return c.err
	}
	return c.w.Flush()
}

// canvas writes SVG elements, keeping the first error.
type canvas struct {
	w   *bufio.Writer
	err error
}

func (c *canvas) printf(format string, args ...any) {
	if c.err == nil {
		_, c.err = fmt.Fprintf(c.w, format, args...)
	}
}

// num formats a coordinate with at most two decimals.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

func (c *canvas) text(x, y float64, anchor string, size float64, extra, s string) {
	c.printf(`<text x="%s" y="%s" text-anchor="%s" font-size="%s"%s>%s</text>`+"\n", num(x), num(y), anchor, num(size), extra, html.EscapeString(s))
}

func (c *canvas) line(x1, y1, x2, y2 float64, stroke string, width float64, dash bool) {
	d := ""
	if dash {
		d = ` stroke-dasharray="5,4"`
	}
	c.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"%s/>`+"\n", num(x1), num(y1), num(x2), num(y2), stroke, num(width), d)
}

func (c *canvas) rect(x, y, w, h float64, fill string) {
	c.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n", num(x), num(y), num(w), num(h), fill)
}

func (c *canvas) polyline(xs, ys []float64, stroke string, dash bool) {
	if len(xs) == 0 {
		return
	}
	var b strings.Builder
	for i := range xs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(num(xs[i]) + "," + num(ys[i]))
	}
	d := ""
	if dash {
		d = ` stroke-dasharray="6,4"`
	}
	c.printf(`<polyline points="%s" fill="none" stroke="%s" stroke-width="1.6"%s/>`+"\n", b.String(), stroke, d)
}

// frame is a panel's plot area and its margins.
type frame struct {
	x0, y0, x1, y1 float64 // plot area: left, top, right, bottom
}

// layout reserves the panel title, legend row, axis labels and tick labels.
func layout(x, y, w, h float64, title string, legend bool) frame {
	top := y + 12
	if title != "" {
		top += 18
	}
	if legend {
		top += 20
	}
	return frame{x0: x + 70, y0: top, x1: x + w - 20, y1: y + h - 48}
}

// legendItem is one entry of a legend row.
type legendItem struct {
	label string
	color string
	dash  bool
	box   bool
}

// header draws a panel's title and its legend row.
func (c *canvas) header(x, y, w float64, title string, items []legendItem) {
	ty := y + 12
	if title != "" {
		c.text(x+w/2, y+24, "middle", 13, ` font-weight="bold"`, title)
		ty += 18
	}
	if len(items) == 0 {
		return
	}
	// Items are laid out left to right from the plot area's left edge; a
	// label's width is estimated at 6.5 px per character of 12 px text.
	lx, ly := x+70, ty+10
	for _, it := range items {
		if it.box {
			c.rect(lx, ly-9, 14, 10, it.color)
		} else {
			c.line(lx, ly-4, lx+18, ly-4, it.color, 2, it.dash)
		}
		c.text(lx+22, ly, "start", 12, "", it.label)
		lx += 22 + 6.5*float64(len([]rune(it.label))) + 16
	}
}

// axes draws the frame, grid lines, ticks and labels.
func (c *canvas) axes(f frame, xs, ys scale, xticks, yticks []tick, xlabel, ylabel string) {
	for _, t := range yticks {
		py := ys.at(t.v)
		c.line(f.x0, py, f.x1, py, "#e5e5e5", 1, false)
		c.line(f.x0-4, py, f.x0, py, "#333", 1, false)
		c.text(f.x0-7, py+4, "end", 11, "", t.label)
	}
	for _, t := range xticks {
		px := xs.at(t.v)
		if t.label != "" {
			c.line(px, f.y0, px, f.y1, "#e5e5e5", 1, false)
		}
		c.line(px, f.y1, px, f.y1+4, "#333", 1, false)
		if t.label != "" {
			c.text(px, f.y1+17, "middle", 11, "", t.label)
		}
	}
	c.line(f.x0, f.y1, f.x1, f.y1, "#333", 1, false)
	c.line(f.x0, f.y0, f.x0, f.y1, "#333", 1, false)
	if xlabel != "" {
		c.text((f.x0+f.x1)/2, f.y1+38, "middle", 12, "", xlabel)
	}
	if ylabel != "" {
		cx, cy := f.x0-54, (f.y0+f.y1)/2
		c.text(cx, cy, "middle", 12, fmt.Sprintf(` transform="rotate(-90 %s %s)"`, num(cx), num(cy)), ylabel)
	}
}
