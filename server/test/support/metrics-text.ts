import parsePrometheusTextFormat, {
  type PrometheusFamily,
  type PrometheusSample,
} from 'parse-prometheus-text-format';

/**
 * One scrape, read by a real Prometheus text parser: `families` as the text declares them (names,
 * types); `series`, every line under its own name (`…_bucket`, `…_sum`, `…_count`) with its labels.
 * The second view exists because parse-prometheus-text-format 1.1.1 merges the label sets of a
 * histogram into one sample, dropping the labels, the sum and the count
 * (yunyu/parse-prometheus-text-format#13; the fix, #8, is unmerged): so the text is parsed again
 * with the histograms' TYPE lines left out, and the parser reads their lines as untyped series.
 */
export type Scraped = {
  status: number;
  contentType: string | null;
  text: string;
  families: PrometheusFamily[];
  series: PrometheusFamily[];
};

export async function scrapeMetrics(url: string): Promise<Scraped> {
  const res = await fetch(url);
  return readMetrics(await res.text(), res.status, res.headers.get('content-type'));
}

export function readMetrics(text: string, status = 200, contentType: string | null = null): Scraped {
  const untyped = text
    .split('\n')
    .filter((line) => !/^# TYPE \S+ histogram$/.test(line))
    .join('\n');
  return {
    status,
    contentType,
    text,
    families: parsePrometheusTextFormat(text),
    series: parsePrometheusTextFormat(untyped),
  };
}

const matches = (sample: PrometheusSample, labels: Record<string, string>) =>
  Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value);

/** The declared type of a family (COUNTER, GAUGE, HISTOGRAM...); undefined if the scrape has none. */
export const typeOf = (scraped: Scraped, name: string) =>
  scraped.families.find((found) => found.name === name)?.type;

/** The samples of the series `name` whose labels include `labels`. */
export const samplesOf = (scraped: Scraped, name: string, labels: Record<string, string> = {}) =>
  scraped.series
    .filter((found) => found.name === name)
    .flatMap((found) => found.metrics.filter((sample) => matches(sample, labels)));

/** The value of the one series `name` with `labels` (a counter, a gauge, a histogram's `_count`); NaN if absent. */
export function metricValue(scraped: Scraped, name: string, labels: Record<string, string> = {}): number {
  const samples = samplesOf(scraped, name, labels);
  if (samples.length > 1) throw new Error(`${samples.length} series ${name} match ${JSON.stringify(labels)}`);
  return Number(samples[0]?.value ?? Number.NaN);
}

/** How many observations a histogram has with `labels`, and their sum. */
export const histogram = (scraped: Scraped, name: string, labels: Record<string, string> = {}) => ({
  count: metricValue(scraped, `${name}_count`, labels),
  sum: metricValue(scraped, `${name}_sum`, labels),
  buckets: samplesOf(scraped, `${name}_bucket`, labels).map((sample) => sample.labels?.le),
});

/** Every label value of every series: what must never carry a token, an email or an id. */
export const labelValues = (scraped: Scraped): string[] =>
  scraped.series.flatMap((found) => found.metrics.flatMap((sample) => Object.values(sample.labels ?? {})));
