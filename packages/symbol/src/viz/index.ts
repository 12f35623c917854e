/**
 * MXNet's `mx.viz`: `printSummary` (the layer table of `print_summary`) and `plotNetwork` (the
 * Graphviz drawing of `plot_network`, as DOT text), for symbols of @mx/symbol.
 */
export { type PlotNetworkOptions, plotNetwork } from './plot.js';
export { type PrintSummaryOptions, printSummary } from './summary.js';
