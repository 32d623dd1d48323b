"""ladderbench's report tools, as a package: each module small enough to read in one sitting.

  runs     every repetition of every case of a result file, with its context
  compare  two runs side by side: ratio of medians, its interval, a verdict per case
  history  chosen cases against commit and date, from every run of one machine
  db       all results in one SQLite file, with a documented schema
"""
