import Foundation
import Testing

@testable import TetherCore

/// `Lock` and `Condition`, the POSIX ones that stand in for NSLock and NSCondition.
@Suite struct LockTests {
    @Test func aLockKeepsCountsWhole() {
        let lock = Lock()
        nonisolated(unsafe) var count = 0
        DeepStack.concurrentPerform(name: "tether-test", iterations: 8) { _ in
            for _ in 0..<10_000 { lock.withLock { count += 1 } }
        }
        #expect(count == 80_000)
    }

    @Test func aWaitEndsAtItsDeadlineOrWhenWoken() {
        let condition = Condition()
        condition.lock()
        let start = Date()
        #expect(condition.wait(until: start.addingTimeInterval(0.05)) == false)
        #expect(Date().timeIntervalSince(start) >= 0.045)
        condition.unlock()
        let woken = Lock()
        nonisolated(unsafe) var isWoken = false
        DeepStack.start(name: "tether-test") {
            usleep(20_000)
            condition.lock()
            woken.withLock { isWoken = true }
            condition.broadcast()
            condition.unlock()
        }
        condition.lock()
        while !woken.withLock({ isWoken }) {
            #expect(condition.wait(until: Date().addingTimeInterval(5)))
        }
        condition.unlock()
    }
}
