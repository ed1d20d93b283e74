/** @jsxImportSource preact */
// The conversation, virtualised (@tanstack/virtual-core): only the messages near the viewport
// are in the DOM, each measured once drawn, so a 2,000-message session scrolls as a short
// one. It follows the bottom while the user is there, and stays put when they scrolled up.
import { elementScroll, measureElement, observeElementOffset, observeElementRect, Virtualizer } from "@tanstack/virtual-core"
import { useEffect, useLayoutEffect, useReducer, useRef, useState } from "preact/hooks"
import type { MessageWithParts } from "../../protocol"
import { MessageView } from "./parts"

export function Conversation({ messages, revertedFrom }: { messages: MessageWithParts[]; revertedFrom?: string }) {
  const scroller = useRef<HTMLDivElement>(null)
  const [, rerender] = useReducer((n: number) => n + 1, 0)
  const atBottom = useRef(true)
  const [virtualizer] = useState(
    () =>
      new Virtualizer<HTMLDivElement, Element>({
        count: messages.length,
        getScrollElement: () => scroller.current,
        estimateSize: () => 120,
        getItemKey: (i) => messages[i]?.info.id ?? i,
        overscan: 6,
        observeElementRect,
        observeElementOffset,
        scrollToFn: elementScroll,
        measureElement,
        onChange: () => rerender(0),
      }),
  )
  virtualizer.setOptions({ ...virtualizer.options, count: messages.length, getItemKey: (i) => messages[i]?.info.id ?? i })

  useEffect(() => virtualizer._didMount(), [])
  useLayoutEffect(() => {
    virtualizer._willUpdate()
  })
  // The last message grows as text streams in: keep it in view when the user was at the bottom.
  const last = messages[messages.length - 1]
  const tail = last ? `${last.info.id}:${last.parts.length}:${last.parts.map((p) => ("text" in p ? p.text.length : 0)).join(",")}` : ""
  useLayoutEffect(() => {
    if (atBottom.current && messages.length) virtualizer.scrollToIndex(messages.length - 1, { align: "end" })
  }, [tail, messages.length])

  const onScroll = () => {
    const el = scroller.current
    if (el) atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40
  }

  const items = virtualizer.getVirtualItems()
  return (
    <div class="conversation" ref={scroller} onScroll={onScroll} role="log" aria-label="Conversation">
      <div style={{ height: `${virtualizer.getTotalSize()}px`, position: "relative", width: "100%" }}>
        {items.map((item) => {
          const m = messages[item.index]!
          return (
            <div key={item.key} data-index={item.index} ref={(el) => void (el && virtualizer.measureElement(el))} class="row" style={{ transform: `translateY(${item.start}px)` }}>
              <MessageView message={m} reverted={!!revertedFrom && m.info.id >= revertedFrom} />
            </div>
          )
        })}
      </div>
    </div>
  )
}
