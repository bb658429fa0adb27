// uPlot with its stylesheet (the legend as a table under the plot, clear of the axes), one chunk loaded only
// when a chart is drawn.
import 'uplot/dist/uPlot.min.css';

export { default as UPlot } from 'uplot';
