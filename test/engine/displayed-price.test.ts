import { describe, expect, it } from 'vitest';
import { TokenBook, displayedPrice } from '../../src/engine/displayed-price.js';

describe('displayed price', () => {
  it('is the midpoint of best bid and best ask when the spread is at most 0.10', () => {
    expect(displayedPrice(0.39, 0.41, 0.5)).toBe(0.4);
    expect(displayedPrice(0.35, 0.45, 0.9)).toBe(0.4); // 0.45 - 0.35 is 0.10000000000000003 in floats
  });

  it('is the last trade price when the spread is wider than 0.10', () => {
    expect(displayedPrice(0.3, 0.41, 0.33)).toBe(0.33);
  });

  it('is the last trade price when one side of the book is empty', () => {
    expect(displayedPrice(undefined, 0.41, 0.37)).toBe(0.37);
    expect(displayedPrice(0.39, undefined, 0.37)).toBe(0.37);
  });

  it('is unknown when neither a usable book nor a trade is known', () => {
    expect(displayedPrice(undefined, undefined, undefined)).toBeUndefined();
    expect(displayedPrice(0.1, 0.9, undefined)).toBeUndefined();
  });

  it('rounds the midpoint so it equals the threshold written as a decimal', () => {
    expect(displayedPrice(0.25, 0.35, undefined)).toBe(0.3);
    expect(displayedPrice(0.1, 0.2, undefined)).toBe(0.15);
  });
});

describe('TokenBook', () => {
  it('answers a price update only when the displayed price changes', () => {
    const book = new TokenBook();
    expect(book.applyTop(0.39, 0.41)).toBe(0.4);
    expect(book.applyTop(0.38, 0.42)).toBeUndefined();
    expect(book.applyTrade(0.45)).toBeUndefined();
    expect(book.applyTop(0.4, 0.42)).toBe(0.41);
    expect(book.shown).toBe(0.41);
  });

  it('switches to the last trade when a book change widens the spread past 0.10 (poly-websockets defect)', () => {
    const book = new TokenBook();
    book.applyTrade(0.45);
    expect(book.applyTop(0.4, 0.44)).toBe(0.42);
    expect(book.applyTop(0.4, 0.46)).toBe(0.43);
    expect(book.applyTop(0.3, 0.46)).toBe(0.45);
    expect(book.applyTop(0.3, 0.4)).toBe(0.35);
  });

  it('uses trades when one side of the book is empty (poly-websockets defect)', () => {
    const book = new TokenBook();
    expect(book.applyTop(0.4, undefined)).toBeUndefined();
    expect(book.applyTrade(0.47)).toBe(0.47);
    expect(book.applyTrade(0.49)).toBe(0.49);
    expect(book.applyTop(0.48, 0.5)).toBeUndefined(); // midpoint 0.49 equals the trade shown
    expect(book.applyTop(undefined, 0.5)).toBeUndefined();
    expect(book.applyTrade(0.51)).toBe(0.51);
  });

  it('forgets everything on clearBook: the next top alone sets the price', () => {
    const book = new TokenBook();
    book.applyTrade(0.45);
    book.applyBook([{ price: 0.4, size: 10 }], [{ price: 0.44, size: 10 }]);
    expect(book.shown).toBe(0.42);
    book.clearBook();
    expect(book.shown).toBeUndefined();
    expect(book.levels).toBeUndefined();
    expect(book.applyTop(0.4, undefined)).toBeUndefined(); // no last trade kept to show
  });
});
