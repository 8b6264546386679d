import { expect } from 'chai';
import { ConsistencyError, NotFound } from '../../src/openstack/errors.js';
import { atMostOne, exactlyOne, novaExactNameFilter } from '../../src/openstack/names.js';

describe('exact names', () => {
  // What Nova's unanchored REGEXP returns for `name=web.1`: every one of these.
  const fuzzy = [
    { id: '1', name: 'web.1' },
    { id: '2', name: 'webx1' },
    { id: '3', name: 'web.10' },
    { id: '4', name: 'Web.1' },
  ];

  it('a regex-y fuzzy match resolves to the one exactly named resource', () => {
    expect(exactlyOne(fuzzy, 'web.1', 'server').id).to.equal('1');
  });

  it('no exact match is NotFound, naming the kind and the name', () => {
    const error = (() => {
      try {
        exactlyOne(fuzzy, 'web', 'server');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).to.be.instanceOf(NotFound);
    expect((error as NotFound).resourceKind).to.equal('server');
    expect((error as NotFound).lookupName).to.equal('web');
    expect((error as NotFound).status).to.equal(undefined);
  });

  it('two exact matches are a ConsistencyError listing both ids', () => {
    const dupes = [...fuzzy, { id: '5', name: 'web.1' }];
    expect(() => exactlyOne(dupes, 'web.1', 'server')).to.throw(ConsistencyError).with.property('ids').that.deep.equals(['1', '5']);
    expect(() => atMostOne(dupes, 'web.1', 'server')).to.throw(ConsistencyError);
  });

  it('atMostOne answers undefined for none', () => {
    expect(atMostOne(fuzzy, 'db', 'server')).to.equal(undefined);
  });

  it('null names (unnamed Cinder volumes) never match', () => {
    expect(atMostOne([{ id: 'v', name: null }], '', 'volume')).to.equal(undefined);
  });

  const filters: Array<[string, string]> = [
    ['web', '^web$'],
    ['web.1', '^web\\.1$'],
    ['a+b(c)[d]{2}|e?*^$\\', '^a\\+b\\(c\\)\\[d\\]\\{2\\}\\|e\\?\\*\\^\\$\\\\$'],
  ];
  for (const [name, filter] of filters) {
    it(`the Nova name filter for '${name}' is anchored and escaped`, () => {
      expect(novaExactNameFilter(name)).to.equal(filter);
      const re = new RegExp(novaExactNameFilter(name));
      expect(re.test(name)).to.equal(true);
      expect(re.test(`${name}-2`)).to.equal(false);
      expect(re.test(`x${name}`)).to.equal(false);
    });
  }
  it('the escaped filter no longer lets web.1 match webx1', () => {
    expect(new RegExp(novaExactNameFilter('web.1')).test('webx1')).to.equal(false);
  });
});
