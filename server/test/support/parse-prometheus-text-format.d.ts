// The package ships no types: what its parser answers, as its README shows it.
declare module 'parse-prometheus-text-format' {
  export type PrometheusSample = {
    labels?: Record<string, string>;
    /** Counters, gauges, untyped: the value as written ("1", "NaN", "+Inf"). */
    value?: string;
    /** Histograms: cumulative counts by upper bound ("0.005", ..., "+Inf"). */
    buckets?: Record<string, string>;
    quantiles?: Record<string, string>;
    count?: string;
    sum?: string;
  };
  export type PrometheusFamily = {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: PrometheusSample[];
  };
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}
