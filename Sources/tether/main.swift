import Tether
print("tether \(tetherVersion)")
