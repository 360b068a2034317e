// Package chart writes the small SVG charts of benchrig's reports: line
// charts (linear or logarithmic x axis, optional error bars, dashed
// reference lines) and grouped bar charts, one or several panels to a page,
// each with axes, ticks, labels and a legend.
//
// It exists so that a binary uploaded to every workload host does not carry
// a general plotting library and its fonts (see README's dependency table):
// the charts need only SVG text, lines and rectangles, which every browser
// and image viewer renders with its own fonts.
package chart
