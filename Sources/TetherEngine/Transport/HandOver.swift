#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A bounded hand-over from producing threads to one consuming thread: `put` waits while the hand-over is full,
/// `take` waits for items and returns all of them at once, or nil once closed and drained.
///
/// Full is `capacity` items, or, below that, `batch` items while they weigh less than `batchWeight` in all (bytes of
/// body, say): small items may wait in a batch whatever the capacity, large ones no more than `capacity`.
///
/// While items keep coming, `take` gathers them for up to `window` before it returns, instead of waking once per
/// item: each wake-up is a context switch on both sides, a `futex` call each. A put wakes the consumer at once when
/// it waits with nothing in hand (the first item after a quiet spell is taken at once), when the hand-over is half
/// full, and when it is full; `close` wakes it too.
final class HandOver<Item>: @unchecked Sendable {
    private let condition = Condition()
    private var items: [Item] = []
    private var weight = 0
    private var isClosed = false
    private let capacity: Int
    private let batch: Int
    private let batchWeight: Int
    private let window: Duration
    private let weigh: (Item) -> Int
    /// The consumer waits with no deadline: the next put must wake it.
    private var isIdle = false
    /// The last `take` returned items: the next one gathers.
    private var isBusy = false

    /// - Parameters:
    ///   - capacity: How many items may wait, whatever they weigh, before `put` waits too.
    ///   - batch: How many light items may wait (at least `capacity`).
    ///   - batchWeight: What the items waiting beyond `capacity` may weigh in all.
    ///   - window: How long `take` gathers items that keep coming (zero: it returns as soon as one waits).
    ///   - weigh: An item's weight.
    init(
        capacity: Int, batch: Int = 32, batchWeight: Int = 1 << 20, window: Duration = .milliseconds(1),
        weigh: @escaping (Item) -> Int = { _ in 0 }
    ) {
        self.capacity = max(1, capacity)
        self.batch = max(self.capacity, batch)
        self.batchWeight = batchWeight
        self.window = window
        self.weigh = weigh
    }

    /// Whether `count` items weighing `weight` in all are at most full.
    private func fits(count: Int, weight: Int) -> Bool {
        count <= capacity || (count <= batch && weight <= batchWeight)
    }

    /// Whether `count` items weighing `weight` fill half the hand-over or more.
    private func isHalfFull(count: Int, weight: Int) -> Bool {
        !fits(count: count * 2, weight: weight * 2)
    }

    /// Adds an item, waiting while the hand-over is full.
    func put(_ item: Item) {
        let itemWeight = weigh(item)
        condition.lock()
        while !items.isEmpty && !fits(count: items.count + 1, weight: weight + itemWeight) {
            condition.broadcast()  // a consumer gathering takes what waits now
            condition.wait()
        }
        items.append(item)
        weight += itemWeight
        let wakes = isIdle || isHalfFull(count: items.count, weight: weight)
        condition.unlock()
        // After the unlock: a consumer woken with the lock still held would only wait for it again.
        if wakes { condition.broadcast() }
    }

    /// No more items will come.
    func close() {
        condition.lock()
        isClosed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Every item waiting (waits for at least one), or nil when closed and nothing is left.
    func take() -> [Item]? {
        condition.lock()
        defer { condition.unlock() }
        if isBusy && window > .zero {
            let deadline = Date(timeIntervalSinceNow: seconds(window))
            while !isClosed && !isHalfFull(count: items.count, weight: weight) && condition.wait(until: deadline) {}
        }
        isIdle = true
        while items.isEmpty && !isClosed { condition.wait() }
        isIdle = false
        isBusy = !items.isEmpty
        guard !items.isEmpty else { return nil }
        let taken = items
        items.removeAll(keepingCapacity: true)
        weight = 0
        condition.broadcast()
        return taken
    }
}
