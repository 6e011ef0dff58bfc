// The units upstream values may be in where the document does not say
// (`upstream.units`); the collectors convert them to base units.
export const BANDWIDTH_UNITS = ['bits_per_second', 'bytes_per_second', 'kilobits_per_second', 'megabits_per_second'] as const;
export type BandwidthUnit = (typeof BANDWIDTH_UNITS)[number];
export const REQUEST_TIME_UNITS = ['milliseconds', 'seconds'] as const;
export type RequestTimeUnit = (typeof REQUEST_TIME_UNITS)[number];

/** What the exporter assumes until upstream.units says otherwise (the simulator's default reading). */
export const DEFAULT_UNITS = { bandwidth: 'bits_per_second', request_time: 'milliseconds' } as const satisfies {
  bandwidth: BandwidthUnit;
  request_time: RequestTimeUnit;
};
