// Benchmarks of the library's hot paths, run in a release build by bench/run.
print("tether-bench: nothing measured yet")
