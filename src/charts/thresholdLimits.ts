/** Threshold lines a chart draws at most: more would hide the series. */
export const MAX_THRESHOLDS = 5;
/** A threshold label's most characters: it sits on its line, at the plot's right end. */
export const MAX_THRESHOLD_LABEL_CHARS = 40;
