package chart

import "math"

// BarSeries is one colour of a grouped bar chart: a value per category.
type BarSeries struct {
	Label  string
	Values []float64
}

// Bars is a grouped bar chart panel: one group per category, one bar per
// series in each group.
type Bars struct {
	Title, YLabel string
	Categories    []string
	Series        []BarSeries
}

func (b Bars) draw(c *canvas, x, y, w, h float64) {
	var items []legendItem
	for i, s := range b.Series {
		items = append(items, legendItem{label: s.Label, color: Color(i), box: true})
	}
	c.header(x, y, w, b.Title, items)
	f := layout(x, y, w, h, b.Title, len(items) > 0)
	top := 0.0
	for _, s := range b.Series {
		for _, v := range s.Values {
			top = math.Max(top, v)
		}
	}
	lo, hi, yt := linearTicks(0, top, 5)
	ys := scale{lo: lo, hi: hi, p0: f.y1, p1: f.y0}
	n := max(len(b.Categories), 1)
	slot := (f.x1 - f.x0) / float64(n)
	c.axes(f, scale{}, ys, nil, yt, "", b.YLabel)
	barW := slot * 0.8 / float64(max(len(b.Series), 1))
	for k, cat := range b.Categories {
		left := f.x0 + float64(k)*slot + slot*0.1
		for i, s := range b.Series {
			if k >= len(s.Values) {
				continue
			}
			top := ys.at(s.Values[k])
			c.rect(left+float64(i)*barW, top, barW*0.92, f.y1-top, Color(i))
		}
		c.text(f.x0+(float64(k)+0.5)*slot, f.y1+17, "middle", 11, "", cat)
	}
}
