package chart

import "math"

// Series is one line of a line chart. Low and High, when set (same length
// as Y), draw a vertical error bar at each point.
type Series struct {
	Label     string
	X, Y      []float64
	Low, High []float64
	Dashed    bool
	Markers   bool
}

// Line is a line chart panel.
type Line struct {
	Title, XLabel, YLabel string
	LogX                  bool
	// YMin and YMax fix the y range when YMax > YMin; otherwise it is
	// the data's, from zero for non-negative data.
	YMin, YMax float64
	// XMin and XMax fix the x range likewise.
	XMin, XMax float64
	Series     []Series
}

func (l Line) draw(c *canvas, x, y, w, h float64) {
	var items []legendItem
	for i, s := range l.Series {
		if s.Label != "" {
			items = append(items, legendItem{label: s.Label, color: Color(i), dash: s.Dashed})
		}
	}
	c.header(x, y, w, l.Title, items)
	f := layout(x, y, w, h, l.Title, len(items) > 0)

	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range l.Series {
		for i := range s.X {
			if l.LogX && s.X[i] <= 0 {
				continue
			}
			xlo, xhi = math.Min(xlo, s.X[i]), math.Max(xhi, s.X[i])
			ylo, yhi = math.Min(ylo, s.Y[i]), math.Max(yhi, s.Y[i])
			if i < len(s.High) {
				yhi = math.Max(yhi, s.High[i])
				ylo = math.Min(ylo, s.Low[i])
			}
		}
	}
	if math.IsInf(xlo, 0) {
		xlo, xhi, ylo, yhi = 0, 1, 0, 1
	}
	if ylo > 0 {
		ylo = 0
	}
	if l.YMax > l.YMin {
		ylo, yhi = l.YMin, l.YMax
	}
	if l.XMax > l.XMin {
		xlo, xhi = l.XMin, l.XMax
	}
	var xt, yt []tick
	if l.LogX {
		xlo, xhi, xt = logTicks(xlo, xhi)
	} else {
		xlo, xhi, xt = linearTicks(xlo, xhi, 8)
	}
	ylo, yhi, yt = linearTicks(ylo, yhi, 5)
	xs := scale{lo: xlo, hi: xhi, p0: f.x0, p1: f.x1, log: l.LogX}
	ys := scale{lo: ylo, hi: yhi, p0: f.y1, p1: f.y0}
	c.axes(f, xs, ys, xt, yt, l.XLabel, l.YLabel)
	for i, s := range l.Series {
		var px, py []float64
		for j := range s.X {
			if l.LogX && s.X[j] <= 0 {
				continue
			}
			px, py = append(px, xs.at(s.X[j])), append(py, ys.at(s.Y[j]))
			if j < len(s.High) {
				c.line(xs.at(s.X[j]), ys.at(s.Low[j]), xs.at(s.X[j]), ys.at(s.High[j]), Color(i), 1.2, false)
			}
		}
		c.polyline(px, py, Color(i), s.Dashed)
		if s.Markers {
			for j := range px {
				c.printf(`<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", num(px[j]), num(py[j]), Color(i))
			}
		}
	}
}
