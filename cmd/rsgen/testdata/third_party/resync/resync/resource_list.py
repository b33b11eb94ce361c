"""ResourceSync Resource List object.

A Resource List is a set of resources with some metadata for
each resource. Every resource must have a uri attribute.
Comparison of resource lists from a source and a destination
allows understanding of whether the two are in sync or whether
some resources need to be updated at the destination.

There may also be metadata about the Resource List, and links
to other ResourceSync documents. Metadata include the
timestamp of the Resource List (md_at) and, optionally, the
timestamp when creation of the Resource List was completed
(md_completed) at the top level. These include a creation timestamp
(from) and links to the Capability List.

Described in specification at:
http://www.openarchives.org/rs/resourcesync#DescResources
"""

import collections.abc
from collections import OrderedDict
import os
from datetime import datetime
import re
import sys

from .list_base_with_index import ListBaseWithIndex
from .sitemap import Sitemap
from .mapper import Mapper, MapperError
from .url_authority import UrlAuthority


class SortedIterMixin(object):
    """Mixin to provide sorted_iter() method."""

    def sorted_iter(self):
        """Iterator over all the resources in this dict by sorted key order."""
        self._sorted_iter_next_list = sorted(self.keys(), reverse=True)
        return iter(self._sorted_iter_next, None)

    def _sorted_iter_next(self):
        if (len(self._sorted_iter_next_list) > 0):
            return self[self._sorted_iter_next_list.pop()]
        else:
            return None


class ResourceListDict(dict, SortedIterMixin):
    """Default implementation of class to store resources in ResourceList.

    Key properties of this class are:
    - has add(resource) method
    - is iterable and gives resources (not keys) in alphanumeric order by
      resource.uri
    """

    def __iter__(self):
        """Iterator over all the resources in this ResourceListDict."""
        return self.sorted_iter()

    def uris(self):
        """Extract sorted list of URIs for resources in this ResourceListDict."""
        return sorted(self.keys())

    def add(self, resource, replace=False):
        """Add just a single resource."""
        uri = resource.uri
        if (uri in self.keys() and not replace):
            raise ResourceListDupeError(
                "Attempt to add resource already in resource_list")
        self[uri] = resource


class ResourceListOrdered(OrderedDict, SortedIterMixin):
    """Alternative implementation of class to store resources in ResourceList.

    Key properties of this class are:
    - has add(resource) method
    - is iterable and gives resources (not keys) in the order added
    """

    def __iter__(self):
        """Iterator over the resources in the list in the order added."""
        return iter(self.values())

    def uris(self):
        """Extract list of all resource URIs in the order added."""
        return self.keys()

    def add(self, resource, replace=False):
        """Add just a single resource."""
        uri = resource.uri
        if (uri in self and not replace):
            raise ResourceListDupeError(
                "Attempt to add resource already in resource_list")
        self[uri] = resource


class ResourceListDupeError(Exception):
    """Exception in case of duplicate resource."""

    pass


class ResourceList(ListBaseWithIndex):
    """Class representing a ResourceList.

    This same class is used for both the source and the destination
    and is the central point of comparison the decide whether they
    are in sync or what needs to be copied to bring the destinaton
    into sync.

    A ResourceList will admit only one resource with any given URI.

    Typical usage for a small ResourceList is:

        rl = ResourceList()
        rl.add( Resource(...) )
        rl.add( Resource(...) )
        print rl.as_xml()

    The default storage is unordered but the iterator imposes a canonical
    order which is alphabetical by URI. If it is desired to have
    resources listed in the order they are added then the ResourceListOrdered
    class may be specified on creation:

        rl = ResourceList( resources_class=ResourceDictOrdered )

    Use of ResourceListOrdered will be faster than the default.

    In normal use it is expected that any Resource List Index will be
    created automatically when writing out a large Resource List in
    multiple sitemap files. However, should it be necessary to
    explicitly create an index then this may be specified with:

        rli = ResourceList( resources_class=ResourceDictOrdered )
        rli.sitemapindex=True

    See additional descriptions in ListBaseWithIndex and ListBase.
    """

    def __init__(self, resources=None, count=None, md=None, ln=None, uri=None,
                 allow_multifile=None, mapper=None,
                 spec_version='1.1', add_lastmod=False,
                 resources_class=ResourceListDict):
        """Initialize ResourceList."""
        super(ResourceList, self).__init__(
            resources=resources,
            count=count,
            md=md,
            ln=ln,
            uri=uri,
            capability_name='resourcelist',
            allow_multifile=allow_multifile,
            mapper=mapper, spec_version=spec_version,
            add_lastmod=add_lastmod,
            resources_class=resources_class)

    def add(self, resource, replace=False):
        """Add a resource or an iterable collection of resources.

        Will throw a ValueError if the resource (ie. same uri) already
        exists in the ResourceList, unless replace=True.
        """
        if isinstance(resource, collections.abc.Iterable):
            for r in resource:
                self.resources.add(r, replace)
        else:
            self.resources.add(resource, replace)

    def compare(self, src):
        """Compare this ResourceList object with that specified as src.

        The parameter src must also be a ResourceList object, it is assumed
        to be the source, and the current object is the destination. This
        written to work for any objects in self and sc, provided that the
        == operator can be used to compare them.

        The functioning of this method depends on the sorted_iter() iterators
        for self and src providing access to the resource objects in URI order.
        """
        dst_iter = self.resources.sorted_iter()
        src_iter = src.resources.sorted_iter()
        same = ResourceList()
        updated = ResourceList()
        deleted = ResourceList()
        created = ResourceList()
        dst_cur = next(dst_iter, None)
        src_cur = next(src_iter, None)
        while ((dst_cur is not None) and (src_cur is not None)):
            # print 'dst='+dst_cur+'  src='+src_cur
            if dst_cur.uri == src_cur.uri:
                if (dst_cur == src_cur):
                    same.add(dst_cur)
                else:
                    updated.add(src_cur)
                dst_cur = next(dst_iter, None)
                src_cur = next(src_iter, None)
            elif dst_cur.uri < src_cur.uri:
                deleted.add(dst_cur)
                dst_cur = next(dst_iter, None)
            else:  # dst_cur.uri > src_cur.uri:
                created.add(src_cur)
                src_cur = next(src_iter, None)
        # what do we have leftover in src or dst lists?
        while (dst_cur is not None):
            deleted.add(dst_cur)
            dst_cur = next(dst_iter, None)
        while (src_cur is not None):
            created.add(src_cur)
            src_cur = next(src_iter, None)
        # have now gone through both lists
        return(same, updated, deleted, created)

    def hashes(self):
        """Return set of hashes uses in this resource_list."""
        hashes = set()
        if (self.resources is not None):
            for resource in self:
                if (resource.md5 is not None):
                    hashes.add('md5')
                if (resource.sha1 is not None):
                    hashes.add('sha-1')
                if (resource.sha256 is not None):
                    hashes.add('sha-256')
        return(hashes)
